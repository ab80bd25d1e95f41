"use strict";
// Placeholder until the viewer lands: shows the profile's title.
(function () {
  if (typeof document === "undefined") return;
  var data = JSON.parse(document.getElementById("profkit-data").textContent);
  document.getElementById("app").textContent = "profkit: " + data.title;
})();
