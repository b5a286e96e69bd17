// Keyboard-first labeling of one item (templates/annotations/label.html).
//
// The page is an ordinary form: radios, checkboxes and notes post as is without this
// file. With it, every change is saved on the server at once (one claim per request,
// in order), so a reload or another device picks up where the annotator left off.
// Keys: j/k or ↓/↑ move between claims, 1-9 label (and move on), f/F or →/← move
// between facts, c cites the focused fact, n opens the note, u undoes, Ctrl+Enter
// submits. Loaded from our own origin under a strict CSP; it never builds HTML.
(function () {
  "use strict";

  var form = document.getElementById("label-form");
  if (!form) return;

  var readOnly = form.hasAttribute("data-read-only");
  var claims = Array.prototype.slice.call(form.querySelectorAll(".claim-card"));
  var facts = Array.prototype.slice.call(form.querySelectorAll(".fact-card"));
  var status = document.getElementById("save-status");
  var progress = document.getElementById("item-progress");
  var progressText = document.getElementById("item-progress-text");
  var factsFor = document.getElementById("facts-for");
  var spans = {}; // claim number -> its spans in the answer (Markdown tags split a claim)
  form.querySelectorAll(".ann-claim").forEach(function (span) {
    var ref = span.getAttribute("data-claim-ref");
    (spans[ref] = spans[ref] || []).push(span);
  });
  var token = form.querySelector("input[name='csrfmiddlewaretoken']").value;
  var draftUrl = form.getAttribute("data-draft-url");

  var current = 0; // index into claims
  var fact = 0; // index into facts
  var undo = []; // [{claim index, state before the change}]
  var last = claims.map(stateOf); // each claim's state as last saved
  var queue = Promise.resolve();
  var pending = 0;
  var noteTimers = {};
  var leaving = false;

  // --- State of one claim card -------------------------------------------------------

  function pk(card) {
    return card.getAttribute("data-claim");
  }

  function stateOf(card) {
    var checked = card.querySelector("input[type='radio']:checked");
    var cited = [];
    card.querySelectorAll("input[type='checkbox']").forEach(function (box) {
      if (box.checked) cited.push(box.value);
    });
    var note = card.querySelector("textarea");
    return { label: checked ? checked.value : "", cited: cited, note: note ? note.value : "" };
  }

  function applyState(card, state) {
    card.querySelectorAll("input[type='radio']").forEach(function (radio) {
      radio.checked = radio.value === state.label;
    });
    card.querySelectorAll("input[type='checkbox']").forEach(function (box) {
      box.checked = state.cited.indexOf(box.value) !== -1;
    });
    var note = card.querySelector("textarea");
    if (note) note.value = state.note;
  }

  function same(a, b) {
    return a.label === b.label && a.note === b.note && a.cited.join(" ") === b.cited.join(" ");
  }

  // --- Saving drafts, one request at a time, in order -----------------------------------

  function say(text, kind) {
    if (!status) return;
    status.textContent = text;
    status.className = "save-status js-only" + (kind ? " is-" + kind : "");
  }

  function save(card) {
    var state = stateOf(card);
    var body = new URLSearchParams();
    body.append("csrfmiddlewaretoken", token);
    body.append("claim", pk(card));
    body.append("label-" + pk(card), state.label);
    state.cited.forEach(function (value) { body.append("cite-" + pk(card), value); });
    body.append("note-" + pk(card), state.note);
    pending += 1;
    say("Saving…", "saving");
    queue = queue.then(function () {
      return fetch(draftUrl, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-CSRFToken": token },
      })
        .then(function (response) {
          if (response.ok) return null;
          return response.json().then(
            function (data) { return data.error || "HTTP " + response.status; },
            function () { return "HTTP " + response.status; }
          );
        })
        .catch(function () { return "the server could not be reached"; })
        .then(function (error) {
          pending -= 1;
          if (error) say("Not saved: " + error, "error");
          else if (pending === 0) say("All changes saved", "saved");
        });
    });
  }

  // Record a change to a claim: remember what it was for undo, show it, save it.
  function changed(index, remember) {
    var card = claims[index];
    var state = stateOf(card);
    if (same(state, last[index])) return;
    if (remember !== false) undo.push({ index: index, state: last[index] });
    last[index] = state;
    refresh();
    save(card);
  }

  // --- What the page shows -----------------------------------------------------------------

  function refresh() {
    var labeled = 0;
    claims.forEach(function (card, i) {
      var state = stateOf(card);
      card.classList.toggle("is-labeled", state.label !== "");
      if (state.label) labeled += 1;
      (spans[String(i + 1)] || []).forEach(function (span) {
        span.className = "ann-claim" + (state.label ? " hl-" + state.label : "") +
          (i === current ? " is-focused" : "");
      });
    });
    if (progress) progress.value = labeled;
    if (progressText) {
      progressText.textContent = labeled + " / " + claims.length + (claims.length === 1 ? " claim" : " claims");
    }
    showFacts();
  }

  function showFacts() {
    var card = claims[current];
    if (!card) return;
    var cited = stateOf(card).cited;
    var model = (card.getAttribute("data-model-cites") || "").split(" ").filter(Boolean);
    if (factsFor) factsFor.textContent = "for claim " + (current + 1);
    facts.forEach(function (el, i) {
      var index = el.getAttribute("data-fact");
      el.classList.toggle("is-cited", cited.indexOf(index) !== -1);
      el.classList.toggle("is-model-cited", model.indexOf(String(Number(index) + 1)) !== -1);
      el.classList.toggle("is-focused", i === fact);
    });
  }

  function focusClaim(index, scroll) {
    if (!claims.length) return;
    current = Math.max(0, Math.min(claims.length - 1, index));
    claims.forEach(function (card, i) { card.classList.toggle("is-focused", i === current); });
    claims[current].focus({ preventScroll: true });
    if (scroll !== false) claims[current].scrollIntoView({ block: "nearest", behavior: "smooth" });
    var span = (spans[String(current + 1)] || [])[0];
    if (span) span.scrollIntoView({ block: "nearest" });
    refresh();
  }

  function focusFact(index) {
    if (!facts.length) return;
    fact = (index + facts.length) % facts.length;
    facts[fact].focus({ preventScroll: true });
    facts[fact].scrollIntoView({ block: "nearest", behavior: "smooth" });
    showFacts();
  }

  // --- Actions -------------------------------------------------------------------------------

  function setLabel(number) {
    var radios = claims[current].querySelectorAll("input[type='radio']");
    var radio = radios[number - 1];
    if (!radio) return;
    radio.checked = true;
    changed(current);
    if (current < claims.length - 1) focusClaim(current + 1);
  }

  function toggleCite() {
    if (!facts.length) return;
    var value = facts[fact].getAttribute("data-fact");
    var box = claims[current].querySelector("input[type='checkbox'][value='" + value + "']");
    if (!box) return;
    box.checked = !box.checked;
    changed(current);
  }

  function openNote() {
    var details = claims[current].querySelector("details.note");
    if (!details) return;
    details.open = true;
    details.querySelector("textarea").focus();
  }

  function undoLast() {
    var step = undo.pop();
    if (!step) {
      say("Nothing to undo", "");
      return;
    }
    applyState(claims[step.index], step.state);
    focusClaim(step.index);
    changed(step.index, false);
  }

  // Every claim needs a label before the item can be handed in: say which one is next.
  function complete() {
    var missing = claims.filter(function (card) { return !stateOf(card).label; });
    if (!missing.length) return true;
    var noun = missing.length === 1 ? " claim needs" : " claims need";
    say(missing.length + noun + " a label first", "error");
    focusClaim(claims.indexOf(missing[0]));
    return false;
  }

  // --- Events --------------------------------------------------------------------------------

  function typing(target) {
    return target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && ["radio", "checkbox"].indexOf(target.type) === -1);
  }

  document.addEventListener("keydown", function (event) {
    if (event.isComposing) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (!readOnly) form.requestSubmit(document.getElementById("submit-button"));
      return;
    }
    if (typing(event.target)) {
      if (event.key === "Escape" && event.target.tagName === "TEXTAREA") {
        event.preventDefault();
        var details = event.target.closest("details");
        var index = claims.indexOf(event.target.closest(".claim-card"));
        clearTimeout(noteTimers[index]);
        if (index !== -1) changed(index);
        if (details && !event.target.value) details.open = false;
        focusClaim(index === -1 ? current : index);
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key;
    var handled = true;
    if (key === "j" || key === "ArrowDown") focusClaim(current + 1);
    else if (key === "k" || key === "ArrowUp") focusClaim(current - 1);
    else if (key === "f" || key === "ArrowRight") focusFact(fact + 1);
    else if (key === "F" || key === "ArrowLeft") focusFact(fact - 1);
    else if (readOnly) handled = false;
    else if (/^[1-9]$/.test(key)) setLabel(Number(key));
    else if (key === "c") toggleCite();
    else if (key === "n") openNote();
    else if (key === "u") undoLast();
    else handled = false;
    if (handled) event.preventDefault();
  });

  // Mouse and native keyboard changes of the inputs go through the same path.
  form.addEventListener("change", function (event) {
    var card = event.target.closest(".claim-card");
    if (!card || event.target.tagName === "TEXTAREA") return;
    var index = claims.indexOf(card);
    if (index !== current) focusClaim(index, false);
    changed(index);
  });

  form.addEventListener("input", function (event) {
    if (event.target.tagName !== "TEXTAREA") return;
    var index = claims.indexOf(event.target.closest(".claim-card"));
    clearTimeout(noteTimers[index]);
    noteTimers[index] = setTimeout(function () { changed(index); }, 600);
  });

  form.addEventListener("click", function (event) {
    var card = event.target.closest(".claim-card");
    if (card && !event.target.closest("input, label, textarea, summary")) {
      focusClaim(claims.indexOf(card), false);
      return;
    }
    var span = event.target.closest(".ann-claim");
    if (span) {
      focusClaim(Number(span.getAttribute("data-claim-ref")) - 1);
      return;
    }
    var factCard = event.target.closest(".fact-card");
    // Selecting text in a fact (to copy it) is not a vote for it.
    if (factCard && !event.target.closest("a") && !String(window.getSelection())) {
      fact = facts.indexOf(factCard);
      if (!readOnly) toggleCite();
      showFacts();
    }
  });

  // The posted form carries every claim's state, so no draft is lost; drafts still in
  // flight are let finish first, since one reaching the server after the item was
  // submitted is refused (409) and the page would say so.
  form.addEventListener("submit", function (event) {
    var submitting = event.submitter && event.submitter.id === "submit-button";
    if (submitting && !complete()) {
      event.preventDefault();
      return;
    }
    if (pending > 0) {
      event.preventDefault();
      var submitter = event.submitter;
      queue.then(function () { form.requestSubmit(submitter); });
      return;
    }
    leaving = true;
  });

  window.addEventListener("beforeunload", function (event) {
    if (pending > 0 && !leaving) event.preventDefault();
  });

  var firstOpen = claims.findIndex(function (card) { return !stateOf(card).label; });
  focusClaim(firstOpen === -1 ? 0 : firstOpen, false);
  window.scrollTo(0, 0);
})();
