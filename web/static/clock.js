// A round's clock, counted down each second: "34:59 left", then "time is up (+02:13)".
// The page says the time left as the server saw it; this only keeps it current.
(function () {
  "use strict";
  function pad(n) { return String(n).padStart(2, "0"); }
  function tick() {
    document.querySelectorAll("time.clock[datetime]").forEach(function (el) {
      var left = Math.round((Date.parse(el.getAttribute("datetime")) - Date.now()) / 1000);
      var s = Math.abs(left);
      var text = Math.floor(s / 60) + ":" + pad(s % 60);
      el.textContent = left > 0 ? text + " left" : "time is up (+" + text + ")";
      el.closest(".round-clock").classList.toggle("up", left <= 0);
    });
  }
  // The end in the phone's own time, as the players read their clocks ("ends 20:36", not the
  // server's "19:36 UTC" to convert in their heads); UTC stays named where the phone is on it.
  function local() {
    document.querySelectorAll("time.ends[datetime]").forEach(function (el) {
      var end = new Date(el.getAttribute("datetime"));
      if (isNaN(end)) return;
      var hm = pad(end.getHours()) + ":" + pad(end.getMinutes());
      el.textContent = end.getTimezoneOffset() === 0 ? hm + " UTC" : hm;
    });
  }
  local();
  tick();
  setInterval(tick, 1000);
})();
