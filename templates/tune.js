// The live tuning page (`joute tune --serve`, `joute serve` on a tuning run's folder). The
// server says on /events when the run's files changed (a candidate or a round recorded, a match
// game played, the run finished); the page then reads /summary.json (the record and its
// progress) and the page itself again (rendered from the folder as it is now), and swaps in
// its sections: no reload, and no second renderer in this script.
(function () {
  "use strict";
  var SECTIONS = ["summary", "confirmation", "weights-section", "charts", "history-section"];
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var live = { redraws: 0, candidates: [], games: [], histories: [], charts: [], stages: [],
    ended: false, final: false, lost: false };
  var status = document.getElementById("live-status");

  function seconds(s) {
    if (s === null || s === undefined || !isFinite(s)) return "?";
    s = Math.round(s);
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m " + ("0" + s % 60).slice(-2) + "s";
    return Math.floor(s / 3600) + "h " + ("0" + Math.floor(s / 60) % 60).slice(-2) + "m";
  }
  function progressText(sum) {
    var p = sum.progress || {}, parts = [];
    if (p.stage === "tuning") {
      parts.push("tuning: candidate " + p.candidates + (p.iterations ? " of " + p.iterations : ""));
      parts.push(p.tuning_games + (p.tuning_planned ? " of " + p.tuning_planned : "") + " games");
      if (p.games_per_second) parts.push(p.games_per_second.toFixed(1) + " games/s");
      if (p.playing && p.eta_seconds !== null && p.eta_seconds !== undefined) parts.push("ETA " + seconds(p.eta_seconds));
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
    live.redraws++;
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
    var timer = null, busy = false, again = false, last = 0;
    function refresh() {
      if (busy) { again = true; return; }
      busy = true;
      last = Date.now();
      Promise.all([
        fetch("/summary.json", { cache: "no-store" }).then(function (r) { return r.json(); }),
        fetch("/index.html", { cache: "no-store" }).then(function (r) { return r.text(); })
      ]).then(function (got) {
        swap(new DOMParser().parseFromString(got[1], "text/html"));
        note(got[0]);
        status.textContent = progressText(got[0]);
        status.classList.toggle("over", live.ended || !(got[0].progress || {}).playing);
        if (live.ended) live.final = true;
      }).catch(function () {
        // The server is gone (the run ended or was stopped): the page keeps its last state.
        live.lost = true;
        status.textContent = "the run's server cannot be reached; this page shows the state it last saw";
        status.classList.add("lost");
      }).then(function () {
        busy = false;
        if (again) { again = false; later(); }
        check();
      });
    }
    // At most one redraw a second, however fast candidates finish.
    function later() {
      var gap = 1000 - (Date.now() - last);
      if (gap <= 0) {
        if (timer) { clearTimeout(timer); timer = null; }
        refresh();
      } else if (!timer) {
        timer = setTimeout(function () { timer = null; refresh(); }, gap);
      }
    }
    var events = new EventSource("/events");
    live.stop = function () { events.close(); };
    events.addEventListener("change", later);
    events.addEventListener("end", function () {
      live.ended = true;
      events.close();
      refresh();
    });
    events.onerror = function () {
      // The stream broke without an end (the server was killed): stop following quietly.
      if (!live.ended) { events.close(); live.lost = true; status.classList.add("lost"); }
      check();
    };
    refresh();
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
