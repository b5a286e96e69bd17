// Review page keys: j / k jump to the next / previous unsupported claim in the answer
// (its row in the claims table when it is not marked in the text); v opens the
// reviewer's verdict form of the focused claim, where Enter saves. Loaded from our own
// origin under the strict CSP; without it the page is complete, only the keys are gone.
(function () {
  "use strict";

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  // The problem claims in page order: their rows in the claims tables.
  function problems() {
    return Array.prototype.slice.call(document.querySelectorAll(".claim-row.is-problem"));
  }

  // Where a claim is shown in the answer, else its row.
  function placeOf(row) {
    var span = document.querySelector('.answer [data-claims~="' + CSS.escape(row.id) + '"][tabindex]');
    return span || row;
  }

  var at = -1;

  // A claim split by bold or a link is several spans: the ring goes round all of them,
  // not only the one that holds the focus.
  var ringed = [];

  function ring(anchor) {
    ringed.forEach(function (span) { span.classList.remove("is-jumped"); });
    ringed = anchor
      ? Array.prototype.slice.call(
          document.querySelectorAll('.answer [data-claims~="' + CSS.escape(anchor) + '"]')
        )
      : [];
    ringed.forEach(function (span) { span.classList.add("is-jumped"); });
  }

  document.addEventListener("focusout", function (event) {
    if (ringed.indexOf(event.target) !== -1) ring(null);
  });

  // The claim the focus is on (a span of it in the answer, or its row), by row id.
  function focusedClaim() {
    var active = document.activeElement;
    if (!active || !active.closest) return null;
    var row = active.closest(".claim-row");
    if (row) return row;
    var span = active.closest(".answer [data-claims]");
    if (!span) return null;
    var ids = span.getAttribute("data-claims").split(" ");
    return document.getElementById(ids[ids.length - 1]);
  }

  // v: open the reviewer's verdict form of the focused claim (its "Set verdict" link).
  function openVerdict() {
    var row = focusedClaim() || (at !== -1 ? problems()[at] : null);
    var link = row && row.querySelector("a.set-verdict");
    if (link) link.click();
  }

  function jump(step) {
    var rows = problems();
    if (!rows.length) return;
    var active = document.activeElement;
    var here = rows.findIndex(function (row) {
      var place = placeOf(row);
      return active === row || active === place;
    });
    if (here !== -1) at = here;
    at = at === -1 ? (step > 0 ? 0 : rows.length - 1) : (at + step + rows.length) % rows.length;
    var place = placeOf(rows[at]);
    place.focus({ preventScroll: true });
    ring(place === rows[at] ? null : rows[at].id);
    place.scrollIntoView({ block: "center" });
    var status = document.getElementById("jump-status");
    if (status) status.textContent = "Unsupported claim " + (at + 1) + " of " + rows.length;
  }

  // Second-opinion disagreements, once their table is on the page (it may come later,
  // by htmx): a badge on the claim in the answer and a tag in its claims-table row.
  function flagDisagreements() {
    var rows = document.querySelectorAll('.opinion-row[data-status="disagree"][data-claim]');
    Array.prototype.forEach.call(rows, function (row) {
      var anchor = row.getAttribute("data-claim");
      var parts = document.querySelectorAll('.answer [data-claims="' + CSS.escape(anchor) + '"]');
      if (parts.length) parts[0].setAttribute("data-opinion", "disagree");
      var cell = document.querySelector("#" + CSS.escape(anchor) + " td.claim-text");
      if (cell && !cell.querySelector(".opinion-flag")) {
        var tag = document.createElement("span");
        tag.className = "tag tag-warn opinion-flag";
        tag.textContent = "second opinion disagrees";
        cell.appendChild(tag);
      }
    });
  }

  flagDisagreements();
  document.addEventListener("htmx:afterSettle", flagDisagreements);

  // An open verdict form takes the focus once the page has loaded: the URL names its row,
  // which the browser focuses as the fragment's target (and autofocus yields to that).
  window.addEventListener("load", function () {
    var verdict = document.querySelector(".verdict-form select[name='verdict']");
    if (verdict) window.setTimeout(function () { verdict.focus({ preventScroll: true }); });
  });

  // In the verdict form, Enter on the verdict saves it, as in a text field.
  document.addEventListener("keydown", function (event) {
    var select = event.target;
    if (event.key === "Enter" && select.tagName === "SELECT" && select.closest(".verdict-form")) {
      event.preventDefault();
      select.form.requestSubmit();
    }
  });

  // The new-review form warns, as the answer is written, when no fact is given: the
  // review page said so only after saving (a script file: the CSP allows no inline one).
  function warnWithoutFacts() {
    var form = document.getElementById("review-form");
    var warning = document.getElementById("no-facts-warning");
    if (!form || !warning) return;
    var answer = form.querySelector("[name='answer']");
    var facts = Array.prototype.some.call(
      form.querySelectorAll(".fact-row textarea, [name='facts_json']"),
      function (field) { return field.value.trim() !== ""; }
    );
    warning.hidden = facts || !answer || answer.value.trim() === "";
  }
  document.addEventListener("input", warnWithoutFacts);
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-action='remove-fact']")) window.setTimeout(warnWithoutFacts);
  });
  document.addEventListener("htmx:afterSettle", warnWithoutFacts);
  warnWithoutFacts();

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "j") {
      event.preventDefault();
      jump(1);
    } else if (event.key === "k") {
      event.preventDefault();
      jump(-1);
    } else if (event.key === "v") {
      event.preventDefault();
      openVerdict();
    }
  });
})();
