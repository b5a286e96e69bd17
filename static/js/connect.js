// Copy buttons of the Connect page. Without this file the settings are plain text to
// select; with it, each block's button (hidden until now) copies the block's text.
(function () {
  "use strict";

  function copy(button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target || !navigator.clipboard) {
      return;
    }
    navigator.clipboard.writeText(target.textContent).then(
      function () {
        button.textContent = "Copied";
        window.setTimeout(function () {
          button.textContent = "Copy";
        }, 2000);
      },
      function () {
        button.textContent = "Select and copy";
      }
    );
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.hidden = !navigator.clipboard;
    button.addEventListener("click", function () {
      copy(button);
    });
  });
})();
