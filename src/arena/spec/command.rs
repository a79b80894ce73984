//! `joute match`'s spec, made from the command line: two engines, a game count, openings grown
//! until the board has enough.

use super::*;

/// An error in a command-line argument of `joute match`, named by its flag.
pub(super) fn command_line_error(key: &str, message: String) -> SpecError {
    SpecError {
        file: "(command line)".into(),
        line: 0,
        column: 0,
        key: key.into(),
        message,
    }
}

/// How `joute match` gets its openings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchOpenings {
    /// Plies of every opening; `None`: the game's default, grown until the board has enough
    /// distinct openings.
    pub plies: Option<u32>,
    /// When the board has fewer distinct openings than pairs: play them in turn (engines with
    /// random choices then still play different games) instead of refusing.
    pub repeat: bool,
}

/// An engine's own clock on the command line (`tc=`, `st=`, `timemargin=`), as written:
/// resolved against the match's clock by [`match_spec`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClockWords {
    /// A game clock of its own.
    pub tc: Option<String>,
    /// A time per move of its own.
    pub st: Option<String>,
    /// Its own margin.
    pub timemargin: Option<String>,
}

impl ClockWords {
    /// Takes `key=value` when it is a clock word.
    fn take(&mut self, key: &str, value: &str) -> bool {
        let slot = match key {
            "tc" => &mut self.tc,
            "st" => &mut self.st,
            "timemargin" => &mut self.timemargin,
            _ => return false,
        };
        *slot = Some(value.to_string());
        true
    }
}

/// An engine of `joute match`: a built-in engine (`pvs:8`, with optional `,name=...,tc=...`
/// words) or an outside program, written as comma-separated `KEY=VALUE` words:
/// `cmd=./edax,proto=gtp,name=edax,arg=-gtp,arg=-l,arg=4`.
#[derive(Clone, Debug, PartialEq)]
pub enum MatchEngine {
    /// A built-in engine.
    BuiltIn {
        /// The engine.
        engine: EngineSpec,
        /// Its own clock, if any.
        clock: ClockWords,
    },
    /// An outside program called `name`.
    Outside {
        /// Its name in tables.
        name: String,
        /// How to run it.
        spec: OutsideSpec,
        /// Its own clock, if any.
        clock: ClockWords,
    },
    /// A hosted engine called `name`: the function the program running the match supplies
    /// under `key` (a Python bot given to `joute.match`; the command line has none).
    Hosted {
        /// Its name in tables.
        name: String,
        /// Its key among the match's [`crate::arena::hosted::Hosts`].
        key: String,
        /// Its own clock, if any.
        clock: ClockWords,
    },
}

/// An outside engine's `KEY=VALUE` words on the command line, as they are read
/// ([`MatchEngine::parse`]).
struct OutsideWords {
    clock: ClockWords,
    name: Option<String>,
    command: Option<String>,
    protocol: Option<crate::arena::outside::Protocol>,
    args: Vec<String>,
    /// The rest of the spec, as the words set it.
    spec: OutsideSpec,
}

impl Default for OutsideWords {
    fn default() -> Self {
        OutsideWords {
            clock: ClockWords::default(),
            name: None,
            command: None,
            protocol: None,
            args: Vec::new(),
            spec: OutsideSpec {
                command: PathBuf::new(),
                args: Vec::new(),
                working_dir: None,
                protocol: crate::arena::outside::Protocol::Line,
                protocol_version: None,
                options: BTreeMap::new(),
                depth: None,
                nodes: None,
                stall_ms: DEFAULT_STALL.as_millis() as u64,
                program: None,
                folder: None,
                guard: Default::default(),
            },
        }
    }
}

impl OutsideWords {
    /// Takes one `KEY=VALUE` word; `bad` makes the error of a message.
    fn take(&mut self, word: &str, bad: &impl Fn(String) -> SpecError) -> Result<(), SpecError> {
        let spec = &mut self.spec;
        let Some((key, value)) = word.split_once('=') else {
            return Err(bad(format!(
                "'{word}' is not KEY=VALUE; keys: {}",
                MatchEngine::KEYS
            )));
        };
        let number = |max: u64| {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| (1..=max).contains(v))
                .ok_or_else(|| bad(format!("{key} is '{value}'; allowed: 1..={max}")))
        };
        if self.clock.take(key, value) {
            return Ok(());
        }
        match key {
            "name" => self.name = Some(value.to_string()),
            "cmd" => self.command = Some(value.to_string()),
            "proto" => {
                self.protocol = Some(crate::arena::outside::Protocol::parse(value).map_err(bad)?)
            }
            "arg" => self.args.push(value.to_string()),
            "args" => self
                .args
                .extend(value.split_whitespace().map(str::to_string)),
            "dir" => spec.working_dir = Some(PathBuf::from(value)),
            "depth" => spec.depth = Some(number(MAX_DEPTH as u64)? as u32),
            "nodes" => spec.nodes = Some(number(MAX_NODES)?),
            "version" => spec.protocol_version = Some(number(2)? as u32),
            "stall" => {
                let d = parse_time(value)
                    .unwrap_or_else(|| Err(format!("stall '{value}' needs a unit: 30s or 500ms")))
                    .map_err(bad)?;
                spec.stall_ms = d.as_millis() as u64;
            }
            "memory_limit" => spec.guard.memory_limit = Some(check_size(key, value).map_err(bad)?),
            "write_limit" => spec.guard.write_limit = Some(check_size(key, value).map_err(bad)?),
            "process_limit" => {
                let n = value.parse::<i64>().map_err(|_| {
                    bad(format!(
                        "process_limit is '{value}'; give a number of processes"
                    ))
                })?;
                spec.guard.process_limit = Some(check_processes(n).map_err(bad)?);
            }
            "cpu_limit" => spec.guard.cpu_limit_ms = Some(check_cpu(value).map_err(bad)?),
            "confine" => spec.guard.confine = flag(key, value).map_err(bad)?,
            "pause" => spec.guard.pause = flag(key, value).map_err(bad)?,
            "restart" => spec.guard.restart = check_restart(value).map_err(bad)?,
            "readable" => {
                let path = Path::new(value);
                if value.is_empty() || !path.exists() {
                    return Err(bad(format!("readable: no file or folder at '{value}'")));
                }
                spec.guard.readable.push(path.to_path_buf());
                spec.guard.readable_found.push(absolute(path));
            }
            k if k.starts_with("option.") && k.len() > 7 => {
                spec.options.insert(k[7..].to_string(), value.to_string());
            }
            other => {
                return Err(bad(format!(
                    "unknown key '{other}'; keys: {}",
                    MatchEngine::KEYS
                )));
            }
        }
        Ok(())
    }

    /// The engine the words make: `cmd` and `proto` given, what the protocol cannot pass
    /// refused, the program and its folder found, the name checked.
    fn finish(self, bad: &impl Fn(String) -> SpecError) -> Result<MatchEngine, SpecError> {
        let OutsideWords {
            clock,
            name,
            command,
            protocol,
            args,
            mut spec,
        } = self;
        let command = command.ok_or_else(|| bad("cmd=PROGRAM is missing".into()))?;
        spec.protocol = protocol
            .ok_or_else(|| bad("proto=PROTOCOL is missing (line, gtp, nboard, gomocup)".into()))?;
        check_protocol(&mut spec, bad)?;
        let loc = Locator {
            file: "(command line)",
            text: "",
            base: None,
        };
        let dir = spec.working_dir.as_ref().and_then(|d| d.to_str());
        let program = find_program(&command, &loc, dir.map(|d| ("dir=", d))).map_err(bad)?;
        if let Some(dir) = &spec.working_dir
            && !dir.is_dir()
        {
            return Err(bad(format!("no folder at '{}'", dir.display())));
        }
        if !spec.guard.readable.is_empty() && !spec.guard.confine {
            return Err(bad(
                "readable lists what a confined program may read: it goes with confine=true".into(),
            ));
        }
        let name = name.unwrap_or_else(|| default_name(&args, &command));
        check_name(&name).map_err(bad)?;
        spec.command = PathBuf::from(&command);
        spec.args = args;
        spec.program = Some(absolute(&program));
        spec.folder = spec.working_dir.as_deref().map(absolute);
        Ok(MatchEngine::Outside { name, spec, clock })
    }
}

/// Checks what an outside engine's words ask of its protocol: NBoard's version (2 unless
/// given, no other protocol's), its options, a depth or a node budget it can pass.
fn check_protocol(
    spec: &mut OutsideSpec,
    bad: &impl Fn(String) -> SpecError,
) -> Result<(), SpecError> {
    if spec.protocol == crate::arena::outside::Protocol::Nboard {
        spec.protocol_version.get_or_insert(2);
    } else if spec.protocol_version.is_some() {
        return Err(bad(format!(
            "version belongs to nboard, not {}",
            spec.protocol
        )));
    }
    for (key, value) in &spec.options {
        check_option(spec.protocol, key, value).map_err(bad)?;
    }
    if spec.depth.is_some() && !spec.protocol.passes_depth() {
        return Err(bad(format!(
            "the {} protocol cannot pass a depth",
            spec.protocol
        )));
    }
    if spec.nodes.is_some() && !spec.protocol.passes_nodes() {
        return Err(bad(format!(
            "the {} protocol cannot pass a node budget",
            spec.protocol
        )));
    }
    Ok(())
}

/// A `true` or `false` word.
fn flag(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{key} is '{value}'; allowed: true, false")),
    }
}

/// An outside engine's name when `name=` is not given: the program's file name; for an
/// interpreter (`python3 engine.py`), the script's: the first argument that is a file.
fn default_name(args: &[String], command: &str) -> String {
    let named = args
        .iter()
        .map(String::as_str)
        .find(|a| Path::new(a).is_file())
        .unwrap_or(command);
    Path::new(named)
        .file_stem()
        .map_or_else(|| named.to_string(), |s| s.to_string_lossy().into_owned())
}

impl MatchEngine {
    /// The keys of an outside engine on the command line.
    pub const KEYS: &'static str = "cmd (required), proto (required: line, gtp, nboard, gomocup), name, arg (repeatable), args (split at spaces), dir, depth, nodes, version (nboard), stall, tc, st, timemargin, option.NAME, memory_limit, process_limit, cpu_limit, write_limit, confine, readable (repeatable), pause, restart";

    /// The keys that may follow a built-in engine.
    pub const BUILT_IN_KEYS: &'static str = "name, tc, st, timemargin";

    /// Reads an engine argument: `ALGORITHM[:BUDGET][:KEY=VALUE]...[:WEIGHTS][,KEY=VALUE...]`
    /// or `cmd=...,proto=...` (told apart by an `=` before the first colon).
    pub fn parse(text: &str) -> Result<MatchEngine, SpecError> {
        let (head, rest) = text.split_once(',').unwrap_or((text, ""));
        if !head.split(':').next().unwrap_or("").contains('=') {
            return Self::parse_built_in(head, rest);
        }
        let bad = |m: String| command_line_error("ENGINE", format!("outside engine '{text}': {m}"));
        let mut words = OutsideWords::default();
        for word in text.split(',') {
            words.take(word, &bad)?;
        }
        words.finish(&bad)
    }

    /// A built-in engine `head` (`pvs:8`) and the `KEY=VALUE` words after it.
    fn parse_built_in(head: &str, rest: &str) -> Result<MatchEngine, SpecError> {
        let mut engine =
            EngineSpec::parse(head).map_err(|e| command_line_error("ENGINE", e.to_string()))?;
        let mut clock = ClockWords::default();
        for word in rest.split(',').filter(|w| !w.is_empty()) {
            let bad =
                |m: String| command_line_error("ENGINE", format!("engine '{head},{rest}': {m}"));
            let (key, value) = word.split_once('=').ok_or_else(|| {
                bad(format!(
                    "'{word}' is not KEY=VALUE; keys after a built-in engine: {}",
                    Self::BUILT_IN_KEYS
                ))
            })?;
            if clock.take(key, value) {
                continue;
            }
            match key {
                "name" => {
                    check_name(value).map_err(bad)?;
                    engine.name = value.to_string();
                }
                other => {
                    return Err(bad(format!(
                        "unknown key '{other}'; keys after a built-in engine: {}",
                        Self::BUILT_IN_KEYS
                    )));
                }
            }
        }
        Ok(MatchEngine::BuiltIn { engine, clock })
    }

    /// The engine's name.
    pub fn name(&self) -> &str {
        match self {
            MatchEngine::BuiltIn { engine, .. } => &engine.name,
            MatchEngine::Outside { name, .. } | MatchEngine::Hosted { name, .. } => name,
        }
    }

    /// The engine's own clock words.
    fn clock_words(&self) -> &ClockWords {
        match self {
            MatchEngine::BuiltIn { clock, .. }
            | MatchEngine::Outside { clock, .. }
            | MatchEngine::Hosted { clock, .. } => clock,
        }
    }
}

/// The plies `joute match` starts from when none are given: the fewest that usually give
/// `count` distinct balanced openings.
pub(super) fn default_match_plies(kind: &GameKind, count: u64) -> u32 {
    match kind {
        GameKind::Othello if count <= 2000 => 6,
        GameKind::Othello => 8,
        GameKind::Connect4 if count <= 400 => 4,
        GameKind::Connect4 => 6,
        GameKind::Morpion { .. } | GameKind::RandomTree { .. } => 2,
    }
}

/// The note for openings longer than the game's usual default because many are wanted
/// (`--games 10000`, or `--sprt`'s cap: Othello's 8 plies rather than 6), when the user did not
/// choose the plies.
fn lengthened_note(
    kind: GameKind,
    count: u32,
    request: MatchOpenings,
    plies: u32,
) -> Option<String> {
    let usual = default_match_plies(&kind, 1);
    (request.plies.is_none() && plies > usual).then(|| {
        format!(
            "openings: {plies} plies rather than the usual {usual}, for {count} distinct openings ({} games; {usual} plies seldom give that many balanced ones); --openings PLIES chooses",
            2 * count as u64
        )
    })
}

/// How many plies `joute match` adds at a time, and at most, when the board has too few
/// distinct openings of the default length.
pub(super) const PLIES_STEP: u32 = 2;
pub(super) const PLIES_GROWTH: u32 = 8;

/// A two-engine spec from the command line (`joute match`), with a note for the user when the
/// openings were lengthened or repeat.
#[allow(clippy::too_many_arguments)]
pub fn match_spec(
    kind: GameKind,
    engines: [MatchEngine; 2],
    games: u64,
    openings: MatchOpenings,
    seed: u64,
    sprt: Option<Sprt>,
    clock: Option<ResolvedClock>,
) -> Result<(TournamentSpec, Option<String>), SpecError> {
    let err = command_line_error;
    for e in &engines {
        if let MatchEngine::Outside { name, spec, .. } = e
            && let Some(why) = spec.protocol.refuses(&kind)
        {
            return Err(err("ENGINE", format!("engine '{name}': {why}")));
        }
    }
    if games > MAX_GAMES || games / 2 > MAX_OPENINGS {
        return Err(err(
            "--games",
            format!(
                "--games is {games}; at most {}",
                MAX_GAMES.min(2 * MAX_OPENINGS)
            ),
        ));
    }
    if let Some(plies) = openings.plies
        && plies > 200
    {
        return Err(err(
            "--openings",
            format!("--openings is {plies}; allowed: 0..=200 plies"),
        ));
    }
    if let Some(test) = &sprt {
        check_sprt_bounds(test.elo0, test.elo1).map_err(|m| err("--sprt", m))?;
    }
    if games == 0 || !games.is_multiple_of(2) {
        return Err(err(
            "--games",
            format!(
                "--games is {games}; it must be a positive even number (openings are played twice, colours swapped)"
            ),
        ));
    }
    struct Build {
        engines: [MatchEngine; 2],
        clock: Option<ResolvedClock>,
        games: u64,
        openings: MatchOpenings,
        seed: u64,
        sprt: Option<Sprt>,
    }
    impl FeaturesVisitor for Build {
        type Output = Result<(ResolvedSpec, Option<String>), SpecError>;
        fn visit<G: Features>(self, start: G) -> Self::Output {
            let err = command_line_error;
            let mut names: Vec<String> =
                self.engines.iter().map(|e| e.name().to_string()).collect();
            if names[0] == names[1] {
                names[0].push_str("#1");
                names[1].push_str("#2");
            }
            let mut resolved = Vec::new();
            for (e, name) in self.engines.iter().zip(&names) {
                let words = e.clock_words();
                let own_clock = engine_clock_of(
                    words.tc.as_deref(),
                    words.st.as_deref(),
                    words.timemargin.as_deref(),
                    self.clock,
                )
                .map_err(|(key, m)| err("ENGINE", format!("engine '{name}': {key}: {m}")))?;
                resolved.push(match e {
                    MatchEngine::BuiltIn { engine, .. } => {
                        built_in_engine(&start, engine, name, own_clock)?
                    }
                    MatchEngine::Outside { spec, .. } => {
                        let mut engine = ResolvedEngine::outside(name, spec.clone());
                        engine.clock = own_clock;
                        engine
                    }
                    MatchEngine::Hosted { key, .. } => {
                        let mut engine = ResolvedEngine::hosted(name, key);
                        engine.clock = own_clock;
                        engine
                    }
                });
            }
            let kind = GameKind::parse(&start.name()).expect("own name");
            let balance = Balance::default_for(kind);
            let count = (self.games / 2) as u32;
            let (plies, list, distinct, note) =
                match_openings(start, kind, count, self.openings, self.seed, &balance)?;
            Ok((
                ResolvedSpec {
                    name: format!("match-{}-vs-{}", names[0], names[1]),
                    game: start.name(),
                    seed: self.seed,
                    format: "round-robin".into(),
                    challengers: Vec::new(),
                    openings: OpeningSource::Random {
                        plies,
                        count,
                        balance,
                        distinct,
                    },
                    opening_moves: openings::notation(&start, &list),
                    rounds: 1,
                    engines: resolved,
                    anchor: None,
                    ratings: Default::default(),
                    sprt: self.sprt,
                    clock: self.clock,
                    adjudication: None,
                    records: Vec::new(),
                    engine_log_mib: None,
                    grown: Vec::new(),
                    affinity: false,
                },
                note,
            ))
        }
    }
    let (resolved, note) = crate::eval::dispatch(
        &kind,
        Build {
            engines,
            clock,
            games,
            openings,
            seed,
            sprt,
        },
    )?;
    Ok((TournamentSpec::from_resolved(resolved), note))
}

/// A built-in engine of `joute match` called `name` in canonical form, its evaluation loaded
/// for the game of `start`, on its own clock `own_clock` if any.
fn built_in_engine<G: Features>(
    start: &G,
    e: &EngineSpec,
    name: &str,
    own_clock: Option<ResolvedClock>,
) -> Result<ResolvedEngine, SpecError> {
    let mut e = e.clone();
    let (w, patterns) = e
        .load_evaluation(start)
        .map_err(|x| command_line_error("ENGINE", x.to_string()))?;
    let c = &e.config;
    let mut engine = ResolvedEngine {
        name: name.to_string(),
        algorithm: c.algorithm.name().to_string(),
        depth: c.limits.depth,
        nodes: c.limits.nodes,
        time_ms: c.limits.time.map(|t| t.as_secs_f64() * 1000.0),
        playouts: c.options.playouts,
        ordering: c.options.ordering,
        fail_soft: c.options.fail_soft,
        tt_mib: c.options.tt_mib,
        tolerance: c.options.tolerance,
        exploration: c.options.exploration,
        tree_mib: c.options.tree_mib,
        tie_break: c.options.tie_break,
        exact: e.exact.unwrap_or_else(|| {
            crate::search::endgame::default_exact(start, c.algorithm, c.limits.depth)
        }),
        near: c.options.near,
        threats: c.options.threats,
        vcf: c.options.vcf,
        vct: c.options.vct,
        lmr: c.options.lmr,
        threads: c.options.threads,
        weights_origin: String::new(),
        weights: Vec::new(),
        endgame: None,
        patterns: None,
        outside: None,
        hosted: None,
        clock: own_clock,
    };
    engine.set_weights(start, &w);
    if let (Some(p), Some(shared)) = (patterns, e.patterns) {
        let path = e.weights.as_deref().unwrap_or(Path::new("")).display();
        engine.patterns = Some(PatternsFile::new(&path.to_string(), &p, shared));
    }
    Ok(engine)
}

/// The record formats of `joute match --records` (`pgn,ggf`): each one that fits the game,
/// once, as a spec's `[output] records`.
pub fn match_records(kind: &GameKind, list: &str) -> Result<Vec<String>, SpecError> {
    use crate::arena::records::Format;
    let mut names: Vec<String> = Vec::new();
    for word in list.split(',').map(str::trim) {
        let format = Format::parse(word)
            .and_then(|f| f.check_game(kind).map(|_| f))
            .map_err(|e| command_line_error("--records", format!("--records: {e}")))?;
        if !names.iter().any(|n| n == format.name()) {
            names.push(format.name().to_string());
        }
    }
    Ok(names)
}

/// The openings of a match: `count` distinct ones of the given plies, or of the default grown
/// by [`PLIES_STEP`] up to [`PLIES_GROWTH`] more when the board has too few; with `repeat`,
/// the distinct ones found, in turn. Returns the plies, the list, the number of distinct
/// openings when they repeat, and a note saying what was changed.
#[allow(clippy::type_complexity)]
pub(super) fn match_openings<G: Features>(
    start: G,
    kind: GameKind,
    count: u32,
    request: MatchOpenings,
    seed: u64,
    balance: &Balance,
) -> Result<(u32, Vec<Vec<G::Move>>, Option<u32>, Option<String>), SpecError> {
    let err = command_line_error;
    let first = request
        .plies
        .unwrap_or_else(|| default_match_plies(&kind, count as u64));
    let last = if request.plies.is_some() {
        first
    } else {
        first + PLIES_GROWTH
    };
    let mut best: (u32, Vec<Vec<G::Move>>) = (first, Vec::new());
    let mut plies = first;
    loop {
        let mut stream = openings::OpeningStream::new(start, plies, seed, balance.clone());
        let mut list = Vec::with_capacity(count as usize);
        while list.len() < count as usize {
            match stream.next_opening() {
                Ok((moves, _)) => list.push(moves),
                Err(_) => break,
            }
        }
        if list.len() == count as usize {
            let note = if plies != first {
                Some(format!(
                    "openings: {plies} plies ({} give only {} distinct openings, {count} needed)",
                    first,
                    best.1.len()
                ))
            } else {
                lengthened_note(kind, count, request, plies)
            };
            return Ok((plies, list, None, note));
        }
        // Keep the longest list found (the first one on a tie: the shortest openings).
        if plies == first || list.len() > best.1.len() {
            best = (plies, list);
        }
        if plies + PLIES_STEP > last {
            break;
        }
        plies += PLIES_STEP;
    }
    let (plies, distinct) = best;
    if distinct.is_empty() {
        return Err(err(
            "--openings",
            format!(
                "no playable opening of {plies} plies on {}: choose fewer plies with --openings",
                start.name()
            ),
        ));
    }
    if !request.repeat {
        let tried = if last > first {
            format!("{first} to {last} plies")
        } else {
            format!("{first} plies")
        };
        return Err(err(
            "--openings",
            format!(
                "{} has only {} distinct playable openings ({tried}), fewer than the {count} pairs of --games {}: ask for --games {} or fewer, or add --repeat-openings to play them in turn (engines with random choices still play different games)",
                start.name(),
                distinct.len(),
                2 * count as u64,
                2 * distinct.len()
            ),
        ));
    }
    let found = distinct.len();
    let list: Vec<Vec<G::Move>> = distinct
        .iter()
        .cycle()
        .take(count as usize)
        .cloned()
        .collect();
    let note = format!(
        "openings: {} has only {found} distinct openings of {plies} plies; each is played {} times (--repeat-openings)",
        start.name(),
        (count as usize).div_ceil(found)
    );
    Ok((plies, list, Some(found as u32), Some(note)))
}
