
// ---- live: the follower both live pages share (the run's page, the tuning page) ----
// The server says on /events (`event`) when the run's files changed; the page then reads
// /summary.json and the page itself again (rendered by the server from the files as they are
// now), and `redraw(summary, doc)` swaps the fresh page's parts in and returns the progress
// line: no reload, and no second renderer in the script. At most one redraw a second, however
// fast the run goes. `live` keeps the count (`redraws`) and the state (`ended`: the server said
// the run ended; `final`: the page drew the state after that; `lost`: the server cannot be
// reached), gets `stop` (closes the stream), and `live.check`, when set, is called after each
// redraw and when the stream breaks (the self-tests report from it).
function jouteFollow(event, live, status, redraw) {
  var timer = null, busy = false, again = false, last = 0;
  function refresh() {
    // Once the state after the end is drawn there is nothing more to read (the server may be
    // gone: a late timer must not ask it).
    if (live.final) return;
    if (busy) { again = true; return; }
    busy = true;
    last = Date.now();
    // Only what was read after the server said the run ended is its final state: a read
    // begun before may show the last match still playing.
    var afterEnd = live.ended;
    Promise.all([
      fetch("/summary.json", { cache: "no-store" }).then(function (r) { return r.json(); }),
      fetch("/index.html", { cache: "no-store" }).then(function (r) { return r.text(); })
    ]).then(function (got) {
      var text = redraw(got[0], new DOMParser().parseFromString(got[1], "text/html"));
      live.redraws++;
      status.textContent = text;
      status.classList.toggle("over", live.ended || !(got[0].progress || {}).playing);
      if (afterEnd) live.final = true;
    }).catch(function () {
      // The server is gone (the run ended or was stopped): the page keeps its last state.
      live.lost = true;
      status.textContent = "the run's server cannot be reached; this page shows the state it last saw";
      status.classList.add("lost");
    }).then(function () {
      busy = false;
      // After the end, the final read at once: the server may not wait long.
      if (again) { again = false; if (live.ended) refresh(); else later(); }
      if (live.check) live.check();
    });
  }
  // At once when the last redraw is a second old, else by a timer (and by the next event,
  // should the timer be late).
  function later() {
    var gap = 1000 - (Date.now() - last);
    if (gap <= 0) {
      if (timer) { clearTimeout(timer); timer = null; }
      refresh();
    } else if (!timer) {
      timer = setTimeout(function () { timer = null; refresh(); }, gap);
    }
  }
  live.active = true;
  var events = new EventSource("/events");
  // The self-tests close the stream once they have reported (a headless browser's virtual
  // time stands still while a request is open).
  live.stop = function () { events.close(); };
  events.addEventListener(event, later);
  events.addEventListener("end", function () {
    live.ended = true;
    events.close();
    if (timer) { clearTimeout(timer); timer = null; }
    refresh();
  });
  events.onerror = function () {
    // The stream broke without an end (the server was killed): stop following quietly.
    if (!live.ended) { events.close(); live.lost = true; status.classList.add("lost"); }
    if (live.check) live.check();
  };
  refresh();
}

// Seconds for a person: `42s`, `12m 05s`, `3h 04m`; `?` when unknown.
function jouteSeconds(s) {
  if (s === null || s === undefined || !isFinite(s)) return "?";
  s = Math.round(s);
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m " + ("0" + s % 60).slice(-2) + "s";
  return Math.floor(s / 3600) + "h " + ("0" + Math.floor(s / 60) % 60).slice(-2) + "m";
}
