// The links page's print buttons: "table slips" prints each table's two seat codes (the
// default when printing without them too), "the judges' sheet" only the judges' codes.
(function () {
  "use strict";
  document.querySelectorAll("button[data-print]").forEach(function (button) {
    button.addEventListener("click", function () {
      document.body.dataset.print = button.dataset.print;
      window.print();
    });
  });
  window.addEventListener("afterprint", function () { delete document.body.dataset.print; });
})();
