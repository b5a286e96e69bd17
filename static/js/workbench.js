// Progressive enhancement for the review pages. Every page works without this file:
// fact rows then come as a fixed number of blank rows, and forms post normally.
// Loaded from our own origin under a strict CSP; it never builds HTML from strings.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  // --- Fact rows: add and remove facts and attribute pairs ------------------------

  var PLACEHOLDERS = ["name", "id", "for", "data-index"];

  function nextIndex(container) {
    var n = Number(container.getAttribute("data-next-index") || "0");
    container.setAttribute("data-next-index", String(n + 1));
    return n;
  }

  // Copy a <template> and put the row numbers into its names and ids.
  function instantiate(templateId, i, j) {
    var template = document.getElementById(templateId);
    var fragment = template.content.cloneNode(true);
    fragment.querySelectorAll("*").forEach(function (el) {
      PLACEHOLDERS.forEach(function (attr) {
        var value = el.getAttribute(attr);
        if (value !== null) {
          el.setAttribute(attr, value.split("__i__").join(i).split("__j__").join(j));
        }
      });
    });
    return fragment;
  }

  function addFact(button) {
    var rows = button.closest("form").querySelector(".fact-rows");
    var i = nextIndex(rows);
    rows.appendChild(instantiate("fact-row-template", i, 0));
    var text = document.getElementById("fact-" + i + "-text");
    if (text) text.focus();
  }

  function addAttribute(button) {
    var row = button.closest(".fact-row");
    var pairs = row.querySelector(".attr-rows");
    pairs.appendChild(
      instantiate("attribute-row-template", row.getAttribute("data-index"), nextIndex(pairs))
    );
    var inputs = pairs.querySelectorAll("input");
    if (inputs.length) inputs[inputs.length - 2].focus();
  }

  var actions = {
    "add-fact": addFact,
    "remove-fact": function (button) { button.closest(".fact-row").remove(); },
    "add-attribute": addAttribute,
    "remove-attribute": function (button) { button.closest(".attr-row").remove(); },
  };

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-action]");
    if (button && actions[button.getAttribute("data-action")]) {
      event.preventDefault();
      actions[button.getAttribute("data-action")](button);
    }
  });

  // --- Destructive forms ask first ------------------------------------------------

  document.addEventListener(
    "submit",
    function (event) {
      var message = event.target.getAttribute("data-confirm");
      if (message && !window.confirm(message)) event.preventDefault();
    },
    true
  );

  // --- Copy buttons: a claim's text, a review's link, an API example -----------------
  // data-copy holds the text; data-copy-link a path (copied as a full URL); data-copy-from
  // the id of the element whose text is copied. The button says whether it worked.

  function copied(button, text) {
    var label = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", label);
    button.textContent = text;
    window.setTimeout(function () { button.textContent = label; }, 1500);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.copy");
    if (!button) return;
    var text = button.getAttribute("data-copy");
    if (button.hasAttribute("data-copy-link")) {
      text = new URL(button.getAttribute("data-copy-link"), window.location.href).href;
    } else if (button.hasAttribute("data-copy-from")) {
      text = document.getElementById(button.getAttribute("data-copy-from")).textContent;
    }
    if (!navigator.clipboard) {
      copied(button, "Copy failed");
      return;
    }
    navigator.clipboard.writeText(text).then(
      function () { copied(button, "Copied"); },
      function () { copied(button, "Copy failed"); }
    );
  });

  // --- A new result comes into view and takes the focus ------------------------------
  // After "Check answer" or "Import" the review lands below the form, out of sight on
  // most screens. An import's pasted JSON is cleared once saved, so a second click cannot
  // save the same review twice.

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "result") return;
    var title = target.querySelector(".review-title");
    if (!title) return;
    title.focus({ preventScroll: true });
    title.scrollIntoView({ block: "start" });
    var form = document.getElementById("review-form");
    if (form && form.querySelector("[name='payload']")) {
      form.querySelectorAll("[name='payload'], input[type='file']").forEach(function (field) {
        field.value = "";
      });
    }
  });

  // --- A failed htmx request says so where its result would have gone --------------

  function showFailure(event, text) {
    var target = event.detail && event.detail.target;
    if (!target) return;
    var message = document.createElement("p");
    message.className = "errors";
    message.setAttribute("role", "alert");
    message.textContent = text;
    target.replaceChildren(message);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : "?";
    showFailure(event, "The server could not finish this request (HTTP " + status + "). Try again.");
  });
  document.addEventListener("htmx:sendError", function (event) {
    showFailure(event, "The server could not be reached. Check the connection and try again.");
  });

  // --- Hovering or focusing a claim lights up the sources it cites -----------------

  var lit = [];
  var current = null;

  function claimOf(el) {
    return el && el.closest ? el.closest("[data-claims], [data-claim], .claim-row") : null;
  }

  function claimAnchors(el) {
    if (el.hasAttribute("data-claims")) return el.getAttribute("data-claims").split(" ");
    if (el.hasAttribute("data-claim")) return [el.getAttribute("data-claim")];
    return [el.id];
  }

  function light(el, cls) {
    if (el) {
      el.classList.add(cls);
      lit.push([el, cls]);
    }
  }

  function show(target) {
    var claim = claimOf(target);
    if (claim === current) return;
    current = claim;
    lit.forEach(function (pair) { pair[0].classList.remove(pair[1]); });
    lit = [];
    if (!claim) return;
    claimAnchors(claim).forEach(function (anchor) {
      var row = document.getElementById(anchor);
      if (!row) return;
      light(row, "is-active");
      document.querySelectorAll('[data-claims~="' + CSS.escape(anchor) + '"]').forEach(function (span) {
        light(span, "is-active");
      });
      (row.getAttribute("data-sources") || "").split(" ").forEach(function (id) {
        if (id) light(document.getElementById(id), "is-cited");
      });
    });
  }

  document.addEventListener("mouseover", function (event) { show(event.target); });
  document.addEventListener("focusin", function (event) { show(event.target); });

  // --- A box that scrolls sideways says so -------------------------------------------
  // Wide tables and code scroll inside their own box on a phone; with no sign, the
  // columns cut off read as the whole table. A box with more past an edge is marked,
  // and the stylesheet fades that edge. In a right-to-left box scrollLeft runs from 0
  // down to minus the overflow, so the distance from the start is its absolute value.

  var SCROLLERS = ".table-scroll, .answer-md pre";

  function markScroll(box) {
    var more = box.scrollWidth - box.clientWidth;
    var from = Math.abs(box.scrollLeft);
    box.classList.toggle("has-more-end", more > 1 && from < more - 1);
    box.classList.toggle("has-more-start", more > 1 && from > 1);
  }

  function markAll() {
    document.querySelectorAll(SCROLLERS).forEach(markScroll);
  }

  document.addEventListener(
    "scroll",
    function (event) {
      var box = event.target;
      if (box instanceof Element && box.matches(SCROLLERS)) markScroll(box);
    },
    true
  );
  window.addEventListener("resize", markAll);
  document.addEventListener("htmx:afterSettle", markAll);
  markAll();
})();
