// joute report: table sorting, the game viewer and the URL-fragment self-test. No framework,
// no network: everything the page needs is in this file and the JSON block above it.
"use strict";
var joute = (function () {
  var errors = [];
  window.addEventListener("error", function (e) {
    errors.push(String(e.message || e.error || e));
  });

  // ---- the projector view: ?view=ratings (or #view=ratings) shows the ratings large ----
  // Read on the client, so that it works on a report opened from disk as on a live page; a
  // live page's redraws swap sections inside <body>, so the class and the view stay.
  var projector = /(^|[?&#,])view=ratings($|[&#,])/.test(location.search + location.hash);
  document.body.classList.toggle("projector", projector);

  // ---- tables: click a header to sort by that column (numbers by data-v or their text) ----
  function cellKey(td) {
    if (!td) return "";
    var v = td.getAttribute("data-v");
    if (v !== null && v !== "" && !isNaN(parseFloat(v))) return parseFloat(v);
    var t = td.textContent.trim();
    var m = /^[<>]?\s*[-+]?\d+(\.\d+)?%?/.exec(t);
    if (m && m[0] === t) return parseFloat(t.replace(/[<>%\s]/g, ""));
    return t.toLowerCase();
  }
  function sortTable(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = !th.classList.contains("asc");
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].classList.remove("asc", "desc");
    th.classList.add(asc ? "asc" : "desc");
    var keyed = rows.map(function (r, i) { return { r: r, k: cellKey(r.cells[col]), i: i }; });
    keyed.sort(function (x, y) {
      var a = x.k, b = y.k, c;
      if (typeof a === "number" && typeof b === "number") c = a - b;
      else c = String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
      if (!asc) c = -c;
      return c || x.i - y.i;
    });
    keyed.forEach(function (x) { body.appendChild(x.r); });
  }
  function initTables(root) {
    var tables = (root || document).querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(heads, function (th, col) {
        th.addEventListener("click", function () { sortTable(table, col, th); });
      });
    });
  }

  // ---- games ----
  var data = JSON.parse(document.getElementById("games-data").textContent);
  var board = data.board, engines = data.engines, games = data.games;
  var byId = {};
  function index() {
    byId = {};
    games.forEach(function (g, i) { byId[g[0]] = i; });
  }
  index();
  function split(s) { return s === "" ? [] : s.split(" "); }

  // Replays `moves` (opening then game) up to `ply`; returns {cells, owner, last}: cells[i] is
  // 0 empty, 1 first player, 2 second; owner[i] the ply that placed the piece on i (or -1).
  function replay(moves, ply) {
    var R = board.rows, C = board.cols, n = R * C;
    var cells = new Array(n), placed = new Array(n), last = -1, side = 1, i;
    for (i = 0; i < n; i++) { cells[i] = 0; placed[i] = -1; }
    if (board.kind === "othello") {
      cells[27] = 2; cells[36] = 2; cells[28] = 1; cells[35] = 1;
    }
    for (var p = 0; p < ply && p < moves.length; p++) {
      var m = moves[p], sq = -1;
      if (board.kind === "othello") {
        if (m.toLowerCase() !== "pass") {
          sq = sqIndex(m);
          if (sq < 0) throw new Error("bad othello move " + m);
          cells[sq] = side;
          othelloFlips(cells, sq, side);
        }
      } else if (board.kind === "connect4") {
        var col = parseInt(m, 10) - 1;
        if (!(col >= 0 && col < C)) throw new Error("bad connect4 move " + m);
        for (var r = R - 1; r >= 0; r--) {
          if (cells[r * C + col] === 0) { sq = r * C + col; break; }
        }
        if (sq < 0) throw new Error("connect4 column full: " + m);
        cells[sq] = side;
      } else if (board.kind === "morpion") {
        sq = sqIndex(m);
        if (sq < 0 || cells[sq] !== 0) throw new Error("bad morpion move " + m);
        cells[sq] = side;
      }
      if (sq >= 0) placed[sq] = p;
      last = sq;
      side = 3 - side;
    }
    return { cells: cells, placed: placed, last: last };
  }
  function sqIndex(m) {
    var c = m.charCodeAt(0) - 97, r = parseInt(m.slice(1), 10) - 1;
    if (!(c >= 0 && c < board.cols && r >= 0 && r < board.rows)) return -1;
    return r * board.cols + c;
  }
  function othelloFlips(cells, sq, side) {
    var r0 = Math.floor(sq / 8), c0 = sq % 8, other = 3 - side;
    var dirs = [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];
    dirs.forEach(function (d) {
      var r = r0 + d[0], c = c0 + d[1], run = [];
      while (r >= 0 && r < 8 && c >= 0 && c < 8 && cells[r * 8 + c] === other) {
        run.push(r * 8 + c); r += d[0]; c += d[1];
      }
      if (run.length && r >= 0 && r < 8 && c >= 0 && c < 8 && cells[r * 8 + c] === side) {
        run.forEach(function (s) { cells[s] = side; });
      }
    });
  }

  // Morpion's rules other than freestyle (K or more in a row win), as the viewer says them.
  var RULES = {
    exact: "exactly K in a row win; longer lines do not",
    renju: "renju: X (black) wins with exactly five and may not make an overline, a double four or a double three; O wins with five or more"
  };
  var SVG = "http://www.w3.org/2000/svg"; // the SVG namespace name, not a resource
  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function drawBoard(state, openingPlies) {
    var R = board.rows, C = board.cols, s = Math.max(18, Math.min(48, Math.floor(420 / Math.max(R, C))));
    var m = 18, w = C * s + m, h = R * s + m;
    var svg = el("svg", { width: w, height: h, viewBox: "0 0 " + w + " " + h, id: "boardsvg" });
    var bg = board.kind === "othello" ? "#2e7d32" : board.kind === "connect4" ? "#1e4fa3" : "#f5f0e6";
    el("rect", { x: m, y: m, width: C * s, height: R * s, fill: bg }, svg);
    for (var c = 0; c < C; c++) {
      var t = el("text", { x: m + c * s + s / 2, y: 13, "text-anchor": "middle", "font-size": 11, fill: "#555" }, svg);
      t.textContent = board.kind === "connect4" ? String(c + 1) : String.fromCharCode(97 + c);
    }
    if (board.kind !== "connect4") {
      for (var r = 0; r < R; r++) {
        var u = el("text", { x: 9, y: m + r * s + s / 2 + 4, "text-anchor": "middle", "font-size": 11, fill: "#555" }, svg);
        u.textContent = String(r + 1);
      }
    }
    for (var i = 0; i < R * C; i++) {
      var x = m + (i % C) * s, y = m + Math.floor(i / C) * s, cx = x + s / 2, cy = y + s / 2;
      var v = state.cells[i];
      if (board.kind !== "connect4") {
        el("rect", { x: x, y: y, width: s, height: s, fill: "none", stroke: board.kind === "othello" ? "#1b5e20" : "#999" }, svg);
      }
      var fromOpening = state.placed[i] >= 0 && state.placed[i] < openingPlies;
      if (board.kind === "othello") {
        if (v) el("circle", { cx: cx, cy: cy, r: s * 0.4, fill: v === 1 ? "#111" : "#f4f4f4", stroke: "#000", "class": "piece", "data-i": i, "data-p": v }, svg);
      } else if (board.kind === "connect4") {
        el("circle", { cx: cx, cy: cy, r: s * 0.4, fill: v === 0 ? "#fafafa" : v === 1 ? "#e53935" : "#fdd835", stroke: "#0d2f6b", "class": v ? "piece" : "hole", "data-i": i, "data-p": v }, svg);
      } else if (v === 1) {
        var g = el("g", { "class": "piece", "data-i": i, "data-p": 1, stroke: "#c62828", "stroke-width": Math.max(2, s / 10) }, svg);
        el("line", { x1: x + s * 0.22, y1: y + s * 0.22, x2: x + s * 0.78, y2: y + s * 0.78 }, g);
        el("line", { x1: x + s * 0.78, y1: y + s * 0.22, x2: x + s * 0.22, y2: y + s * 0.78 }, g);
      } else if (v === 2) {
        el("circle", { cx: cx, cy: cy, r: s * 0.3, fill: "none", stroke: "#1565c0", "stroke-width": Math.max(2, s / 10), "class": "piece", "data-i": i, "data-p": 2 }, svg);
      }
      if (fromOpening && v) {
        // The opening's plies: a dashed amber frame on the squares they were played on.
        el("rect", { x: x + 2, y: y + 2, width: s - 4, height: s - 4, fill: "none", stroke: "#ffb300", "stroke-dasharray": "3 2", "stroke-width": 2, "class": "opening-mark" }, svg);
      }
      if (i === state.last) {
        el("circle", { cx: cx, cy: cy, r: Math.max(3, s * 0.08), fill: "#e91e63", "class": "last" }, svg);
      }
    }
    var holder = document.getElementById("board");
    holder.innerHTML = "";
    holder.appendChild(svg);
    var rule = RULES[board.rule];
    if (rule) {
      // The rule under the board: the moves drawn are the same, what wins is not.
      var caption = document.createElement("div");
      caption.className = "rule";
      caption.textContent = rule.replace("K", String(board.k));
      holder.appendChild(caption);
    }
  }

  var current = null, ply = 0, timer = null;
  function show() {
    if (!current) return;
    var state = replay(current.moves, ply);
    drawBoard(state, current.opening);
    var info = document.getElementById("plyinfo");
    info.textContent = "ply " + ply + " / " + current.moves.length;
    if (ply > 0 && ply <= current.opening) {
      var o = document.createElement("span");
      o.className = "opening";
      o.textContent = "opening";
      info.appendChild(o);
    }
    var spans = document.querySelectorAll("#moves span[data-ply]"), cur = null;
    Array.prototype.forEach.call(spans, function (sp) {
      var on = +sp.getAttribute("data-ply") === ply - 1;
      sp.classList.toggle("cur", on);
      if (on) cur = sp;
    });
    keepInView(cur);
  }
  // Scrolls the move list (not the page) so that the current move is visible.
  function keepInView(sp) {
    var box = document.getElementById("moves");
    if (!sp) { if (ply === 0) box.scrollTop = 0; return; }
    var top = sp.offsetTop, bottom = top + sp.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }
  function pick(index) {
    stop();
    var g = games[index];
    var opening = split(g[4]), moves = split(g[5]);
    current = { g: g, opening: opening.length, moves: opening.concat(moves) };
    ply = 0;
    // How it ended, when not by the rules: a crash after 14 plies is no 0-1 on the board.
    document.getElementById("gamehead").textContent =
      "Game " + g[0] + ": " + engines[g[1]] + " (first) vs " + engines[g[2]] + " (second), " + g[3] +
      (g[6] ? " by " + g[6] + " after " + (split(g[4]).length + split(g[5]).length) + " plies" +
        (g[7] ? ": " + g[7] : "") : "");
    var list = document.getElementById("moves");
    list.innerHTML = "";
    function label(text) {
      var lab = document.createElement("span");
      lab.className = "label";
      lab.textContent = text;
      list.appendChild(lab);
    }
    if (opening.length) label("opening:");
    // Each move number with its moves in one group that does not break across lines.
    var group = null;
    current.moves.forEach(function (m, i) {
      if (i === opening.length && i > 0) { label("game:"); group = null; }
      if (i % 2 === 0 || !group) {
        group = document.createElement("span");
        group.className = "pair";
        list.appendChild(group);
        var num = document.createElement("span");
        num.className = "num";
        // The number apart from the move: "1. 4 6" reads unambiguously in Connect 4.
        num.textContent = Math.floor(i / 2) + 1 + (i % 2 === 0 ? "." : "...");
        group.appendChild(num);
      }
      var sp = document.createElement("span");
      sp.textContent = m;
      sp.setAttribute("data-ply", i);
      if (i < opening.length) sp.className = "op";
      sp.addEventListener("click", function () { ply = i + 1; show(); });
      group.appendChild(sp);
    });
    var sel = document.getElementById("gamelist");
    if (sel.value !== String(index)) sel.value = String(index);
    document.getElementById("gameid").value = String(g[0]);
    show();
  }
  function step(d) {
    if (!current) return;
    ply = Math.max(0, Math.min(current.moves.length, ply + d));
    show();
  }
  // Icons drawn as SVG: the media-control characters (⏮ ⏭ ⏸) are missing from common fonts.
  var PLAY = '<svg class="icon" viewBox="0 0 16 16"><path d="M4 3v10l9-5z"/></svg> play';
  var PAUSE = '<svg class="icon" viewBox="0 0 16 16"><rect x="3" y="3" width="3.5" height="10"/><rect x="9.5" y="3" width="3.5" height="10"/></svg> pause';
  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    document.getElementById("play").innerHTML = PLAY;
  }
  function play() {
    if (timer) { stop(); return; }
    if (!current) return;
    if (ply >= current.moves.length) ply = 0;
    document.getElementById("play").innerHTML = PAUSE;
    timer = setInterval(function () {
      if (ply >= current.moves.length) { stop(); return; }
      step(1);
    }, 500);
  }
  var LIST_MAX = 2000;
  function fillList() {
    var f = +document.getElementById("filter").value;
    var sel = document.getElementById("gamelist");
    sel.innerHTML = "";
    var shown = 0, matching = 0, frag = document.createDocumentFragment();
    for (var i = 0; i < games.length; i++) {
      var g = games[i];
      if (f >= 0 && g[1] !== f && g[2] !== f) continue;
      matching++;
      if (shown >= LIST_MAX) continue;
      var o = document.createElement("option");
      o.value = String(i);
      o.textContent = "#" + g[0] + "  " + engines[g[1]] + " – " + engines[g[2]] + "  " + g[3] + (g[6] ? " (" + g[6] + ")" : "");
      frag.appendChild(o);
      shown++;
    }
    sel.appendChild(frag);
    if (current && byId[current.g[0]] !== undefined) sel.value = String(byId[current.g[0]]);
    document.getElementById("listnote").textContent = matching > shown
      ? "showing the first " + shown + " of " + matching + " games; type an id above for any other"
      : matching + " games";
  }
  function initViewer() {
    var filter = document.getElementById("filter");
    engines.forEach(function (name, i) {
      var o = document.createElement("option");
      o.value = String(i);
      o.textContent = name;
      filter.appendChild(o);
    });
    filter.addEventListener("change", fillList);
    document.getElementById("gamelist").addEventListener("change", function () {
      if (this.value !== "") pick(+this.value);
    });
    // Any game by id, also those past the list's first LIST_MAX entries.
    document.getElementById("gameid").addEventListener("change", function () {
      var index = byId[+this.value];
      if (this.value !== "" && index !== undefined) pick(index);
    });
    document.getElementById("first").addEventListener("click", function () { stop(); ply = 0; show(); });
    document.getElementById("prev").addEventListener("click", function () { stop(); step(-1); });
    document.getElementById("next").addEventListener("click", function () { step(1); });
    document.getElementById("last").addEventListener("click", function () { stop(); if (current) { ply = current.moves.length; show(); } });
    document.getElementById("play").addEventListener("click", play);
    document.addEventListener("keydown", function (e) {
      if (e.target && e.target.tagName === "SELECT") return;
      if (e.key === "ArrowRight") step(1);
      else if (e.key === "ArrowLeft") step(-1);
      else if (e.key === "Home") { stop(); ply = 0; show(); }
      else if (e.key === "End" && current) { stop(); ply = current.moves.length; show(); }
    });
    fillList();
    if (games.length && board.kind !== "none") pick(0);
  }

  // ---- live: a page served by `joute run --serve` or `joute serve` follows the run ----
  // On each `game` event the page swaps in the sections and games of the page fetched again
  // (`jouteFollow`, templates/live.js).
  var LIVE_SECTIONS = ["progress-section", "sprt-section", "ratings-section", "cost-section", "terminations-section",
    "crosstable-section", "los-section", "pairs-section", "charts"];
  var live = { redraws: 0, counts: [], ended: false, final: false, lost: false, tables: [], costs: [] };
  function progressText(sum) {
    var p = sum.progress || {}, parts = [];
    parts.push(sum.games + " games rated");
    if (p.scheduled) parts.push(p.logged + " of " + p.scheduled + " logged");
    if (p.games_per_second) parts.push(p.games_per_second.toFixed(1) + " games/s");
    if (p.playing && p.eta_seconds !== null && p.eta_seconds !== undefined) parts.push("ETA " + jouteSeconds(p.eta_seconds));
    if (sum.sprt) {
      parts.push("LLR " + sum.sprt.llr.toFixed(2) + " in (" + sum.sprt.lower.toFixed(2) + ", " +
        sum.sprt.upper.toFixed(2) + ")" + (sum.sprt.decision ? ": " + String(sum.sprt.decision).toUpperCase() + " accepted" : ""));
    }
    var head = live.ended ? "the run's server has stopped; final state: " : p.playing ? "live: " : "not playing now: ";
    return head + parts.join(" · ");
  }
  // Swaps the sections of `doc` (the page fetched again) into this one.
  function swapSections(doc) {
    LIVE_SECTIONS.forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (theirs) {
        theirs = document.importNode(theirs, true);
        if (mine) mine.parentNode.replaceChild(theirs, mine);
        else document.getElementById("viewer").parentNode.insertBefore(theirs, document.getElementById("viewer"));
        initTables(theirs);
      } else if (mine) {
        mine.parentNode.removeChild(mine);
      }
    });
    ["sub", "timing"].forEach(function (id) {
      var mine = document.getElementById(id), theirs = doc.getElementById(id);
      if (mine && theirs) mine.textContent = theirs.textContent;
    });
    var fresh = JSON.parse(doc.getElementById("games-data").textContent);
    if (fresh.games.length !== games.length) {
      games = fresh.games;
      index();
      fillList();
      document.getElementById("game-count").textContent = String(games.length);
      if (!current && games.length && board.kind !== "none") pick(0);
    }
  }
  function initLive() {
    if (!document.body.hasAttribute("data-live") || !window.EventSource || !window.fetch) return;
    jouteFollow("game", live, document.getElementById("live-status"), function (sum, doc) {
      swapSections(doc);
      live.counts.push(sum.games);
      live.tables.push(document.querySelector("#ratings tbody").textContent.replace(/\s+/g, " ").trim());
      var cost = document.querySelector("#cost tbody");
      live.costs.push(cost ? cost.textContent.replace(/\s+/g, " ").trim() : "");
      return progressText(sum);
    });
  }

  // ---- self-test: index.html#test=game:5,plies:10,sort:elo ----
  function boardCells() {
    var n = board.rows * board.cols, out = [];
    for (var i = 0; i < n; i++) out.push("-");
    var pieces = document.querySelectorAll("#boardsvg .piece");
    Array.prototype.forEach.call(pieces, function (p) {
      var v = p.getAttribute("data-p");
      if (v === "1") out[+p.getAttribute("data-i")] = "X";
      else if (v === "2") out[+p.getAttribute("data-i")] = "O";
    });
    return out.join("");
  }
  function names(tableId) {
    var cells = document.querySelectorAll("#" + tableId + " tbody td.name");
    return Array.prototype.map.call(cells, function (c) { return c.textContent; });
  }
  function selftest() {
    var m = /#test=(.*)$/.exec(location.hash);
    if (!m) return;
    var args = {};
    decodeURIComponent(m[1]).split(",").forEach(function (kv) {
      var i = kv.indexOf(":");
      if (i > 0) args[kv.slice(0, i)] = kv.slice(i + 1);
    });
    var out = { ok: false, args: args };
    try {
      out.ratings = names("ratings");
      // What the view shows: whether each section is drawn, and the type sizes.
      out.projector = document.body.classList.contains("projector");
      out.shown = {};
      ["progress-section", "ratings-section", "spec", "cost-section", "crosstable-section", "charts", "viewer"].forEach(function (id) {
        var e = document.getElementById(id);
        out.shown[id] = !!e && e.getClientRects().length > 0;
      });
      var cell = document.querySelector("#ratings tbody td.name");
      out.ratingsFontPx = cell ? parseFloat(getComputedStyle(cell).fontSize) : 0;
      out.bodyFontPx = parseFloat(getComputedStyle(document.body).fontSize);
      out.progress = document.getElementById("progress").textContent;
      out.overflow = document.documentElement.scrollWidth > window.innerWidth + 1;
      out.order = Array.prototype.map.call(document.querySelectorAll("body > section"), function (e) { return e.id; });
      out.charts = document.querySelectorAll("#charts .chart-svg").length;
      out.chartSvgs = document.querySelectorAll("#charts .chart-svg svg").length;
      out.games = games.length;
      out.live = live;
      if (args.game !== undefined) {
        var index = byId[+args.game];
        if (index === undefined) throw new Error("no game " + args.game);
        var idInput = document.getElementById("gameid");
        idInput.value = String(+args.game);
        idInput.dispatchEvent(new Event("change"));
        var next = document.getElementById("next");
        for (var k = 0; k < +(args.plies || 0); k++) next.click();
        out.game = current.g[0];
        out.head = document.getElementById("gamehead").textContent;
        out.ply = ply;
        out.openingPlies = current.opening;
        out.moves = current.moves;
        out.cells = boardCells();
        out.openingLabel = !!document.querySelector("#plyinfo .opening");
        out.openingMarks = document.querySelectorAll("#boardsvg .opening-mark").length;
        // The move list wraps inside its box, and the current move is in its visible part.
        var box = document.getElementById("moves"), cur = box.querySelector("span.cur");
        out.movesWrap = box.scrollWidth <= box.clientWidth + 1;
        out.pageWide = document.documentElement.scrollWidth > window.innerWidth + 1;
        // What sticks out, if anything (for the test's message).
        out.wide = Array.prototype.filter.call(document.querySelectorAll("body *"), function (e) {
          return e.getBoundingClientRect().right > window.innerWidth + 1;
        }).slice(0, 6).map(function (e) { return e.tagName + "#" + e.id + "." + e.className; });
        out.width = window.innerWidth;
        out.curVisible = !cur || (cur.offsetTop >= box.scrollTop - 1 &&
          cur.offsetTop + cur.offsetHeight <= box.scrollTop + box.clientHeight + 1);
        out.moveNumbers = Array.prototype.map.call(box.querySelectorAll("span.num"), function (s) { return s.textContent; }).slice(0, 3);
        out.moveTexts = Array.prototype.map.call(box.querySelectorAll("span[data-ply]"), function (s) { return s.textContent; }).slice(0, 4);
        // Every control button draws its icon as SVG.
        out.iconButtons = Array.prototype.filter.call(document.querySelectorAll(".controls button"), function (b) { return !!b.querySelector("svg"); }).length;
      }
      if (args.sort) {
        var th = document.querySelector("#ratings thead th[data-key='" + args.sort + "']");
        if (!th) throw new Error("no column " + args.sort);
        out.sortBefore = names("ratings");
        th.click();
        out.sortAfter = names("ratings");
        out.sortKeys = Array.prototype.map.call(document.querySelectorAll("#ratings tbody tr"), function (r) {
          return cellKey(r.cells[th.cellIndex]);
        });
      }
      out.ok = true;
    } catch (e) {
      errors.push(String(e && e.stack || e));
    }
    out.errors = errors;
    document.getElementById("selftest").textContent = JSON.stringify(out);
  }

  try {
    initTables();
    initViewer();
    initLive();
  } catch (e) {
    errors.push(String(e && e.stack || e));
  }
  // A live self-test (#test=live:N) reports once the page has redrawn itself N times, or the
  // run's server has stopped or gone: checked after each redraw, not by a timer (a headless
  // browser may hold timers back), then it closes its event stream.
  var wanted = /#test=.*live:(\d+)/.exec(location.hash);
  if (wanted && live.active) {
    live.check = function () {
      if (live.redraws >= +wanted[1] || live.lost || live.final) {
        live.check = null;
        selftest();
        if (live.stop) live.stop();
      }
    };
  } else {
    selftest();
  }
  return { replay: replay, errors: errors };
})();
