// The live tuning page (`joute tune --serve`, `joute serve` on a tuning run's folder). The
// server sends `change` on /events when the run's files changed (a candidate or a round
// recorded, a match game played, the run finished); the page swaps in the sections of the page
// fetched again (`jouteFollow`, templates/live.js) and its progress line from /summary.json.
(function () {
  "use strict";
  var SECTIONS = ["summary", "confirmation", "weights-section", "charts", "history-section"];
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var live = { redraws: 0, candidates: [], games: [], histories: [], charts: [], stages: [],
    ended: false, final: false, lost: false };
  var status = document.getElementById("live-status");

  function progressText(sum) {
    var p = sum.progress || {}, parts = [];
    if (p.stage === "tuning") {
      parts.push("tuning: candidate " + p.candidates + (p.iterations ? " of " + p.iterations : ""));
      parts.push(p.tuning_games + (p.tuning_planned ? " of " + p.tuning_planned : "") + " games");
      if (p.games_per_second) parts.push(p.games_per_second.toFixed(1) + " games/s");
      if (p.playing && p.eta_seconds !== null && p.eta_seconds !== undefined) parts.push("ETA " + jouteSeconds(p.eta_seconds));
    } else if (p.stage === "confirm" || p.stage === "aa") {
      parts.push((p.stage === "aa" ? "A/A match: " : "confirmation match: ") + p.match_games +
        " of " + p.match_planned + " games");
      parts.push(p.candidates + " candidates tuned");
    } else {
      parts.push("finished: " + p.candidates + " candidates, " + sum.games + " games");
    }
    var head = live.ended ? "the run's server has stopped; final state: " :
      p.stage === "finished" ? "" : p.playing ? "live: " : "not running now: ";
    return head + parts.join(" · ");
  }
  // Swaps the sections of `doc` (the page fetched again) into this one.
  function swap(doc) {
    SECTIONS.forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (mine && theirs) mine.parentNode.replaceChild(document.importNode(theirs, true), mine);
    });
    var sub = document.querySelector("header .sub"), fresh = doc.querySelector("header .sub");
    if (sub && fresh) sub.textContent = fresh.textContent;
  }
  function note(sum) {
    live.candidates.push(sum.history.length);
    live.games.push(sum.games);
    live.stages.push((sum.progress || {}).stage);
    live.histories.push(document.querySelectorAll("#history tbody tr").length);
    // What the charts draw, in short: their SVG's length (it grows with the history).
    live.charts.push(Array.prototype.map.call(document.querySelectorAll("#charts .chart-svg"),
      function (c) { return c.innerHTML.length; }));
  }

  function selftest() {
    var out = { ok: false, live: live };
    try {
      out.sections = SECTIONS.filter(function (id) { return !!document.getElementById(id); });
      out.chartSvgs = document.querySelectorAll("#charts .chart-svg svg").length;
      out.confirmed = document.querySelector("#confirmation .verdict") !== null;
      out.heading = document.querySelector("#weights-section h2").textContent;
      out.ok = true;
    } catch (e) {
      errors.push(String(e && e.stack || e));
    }
    out.errors = errors;
    document.getElementById("selftest").textContent = JSON.stringify(out);
  }
  // A live self-test (#test=live:N) reports once the page has redrawn itself N times, or the
  // run's server has stopped or gone, then closes its event stream (a headless browser's
  // virtual time stands still while a request is open).
  var wanted = /#test=.*live:(\d+)/.exec(location.hash);
  function check() {
    if (wanted && (live.redraws >= +wanted[1] || live.lost || live.final)) {
      wanted = null;
      selftest();
      if (live.stop) live.stop();
    }
  }

  function start() {
    live.check = check;
    jouteFollow("change", live, status, function (sum, doc) {
      swap(doc);
      note(sum);
      return progressText(sum);
    });
  }

  if (document.body.hasAttribute("data-live") && window.EventSource && window.fetch) {
    try {
      start();
    } catch (e) {
      errors.push(String(e && e.stack || e));
      selftest();
    }
  } else if (wanted) {
    selftest();
  }
})();
