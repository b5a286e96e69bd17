// Review page keys: j / k jump to the next / previous unsupported claim in the answer
// (its row in the claims table when it is not marked in the text). Loaded from our own
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

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "j") {
      event.preventDefault();
      jump(1);
    } else if (event.key === "k") {
      event.preventDefault();
      jump(-1);
    }
  });
})();
