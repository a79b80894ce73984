//! The command line: argument parsing (clap) and the mapping of each subcommand onto the
//! library. No game logic lives here.

#[macro_use]
pub(crate) mod output;

mod analyze;
mod bench;
mod engine;
mod export;
mod fit;
mod interrupt;
mod meter;
mod openings;
mod perft;
mod play;
mod rate;
mod run;
mod serve;
mod solve;
mod tune;
pub mod usage;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde_json::json;

use joute::games::GameKind;
use joute::search::Algorithm;

pub use interrupt::EXIT_INTERRUPTED;
pub use run::{Interrupted, SprtVerdict};

/// A mistake in what the user gave (arguments, files, positions): reported on one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Whether `err` says the user's input is wrong (exit 2) rather than the run failed (exit 1):
/// the command line's own [`InputError`], and the library's errors that know they are the
/// input's (a position that does not parse, a run folder or spec refused).
pub fn refused_input(err: &anyhow::Error) -> bool {
    err.downcast_ref::<InputError>().is_some()
        || err.downcast_ref::<joute::games::GameError>().is_some()
        || err
            .downcast_ref::<joute::tournament::SessionError>()
            .is_some_and(|e| e.is_input())
        || err
            .downcast_ref::<joute::tune::checkpoint::TuneError>()
            .is_some_and(|e| e.is_input())
}

/// joute: self-play tournaments, ratings and weight tuning for board-game engines.
#[derive(Parser, Debug)]
#[command(
    name = "joute",
    version,
    about,
    long_about = None,
    allow_negative_numbers = true,
    after_help = "Documentation: README.md and docs/ (every key of a spec: docs/spec.md); \
                  'joute COMMAND --help' for each command."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a tournament from a TOML spec (without one: the embedded quickstart).
    #[command(after_help = SPEC_REFERENCE)]
    Run(RunArgs),
    /// Play a two-engine match straight from the command line.
    #[command(after_help = match_help())]
    Match(MatchArgs),
    /// Tune a built-in engine's evaluation weights, or an outside program's options, from a
    /// tuning spec.
    #[command(after_help = SPEC_REFERENCE)]
    Tune(TuneArgs),
    /// Ratings, charts and HTML from one or more game logs (shards merge).
    Report(ReportArgs),
    /// Serve a run's page live: a run another process plays, a finished run, or shards merged;
    /// or a tuning run's.
    Serve(serve::ServeArgs),
    /// Count the move sequences of exactly DEPTH plies (perft), for every depth up to DEPTH.
    Perft(PerftArgs),
    /// Generate an opening suite: balanced openings with a provenance header.
    Openings(OpeningsArgs),
    /// The exact value of a position by full-depth search, or of every position of a suite.
    Solve(SolveArgs),
    /// Play one game between two engines and show the board after every move.
    #[command(after_help = engine_help())]
    Play(PlayArgs),
    /// Measure the algorithms on synthetic trees against their theory.
    Analyze(AnalyzeArgs),
    /// List the evaluation features of a game.
    Features(FeaturesArgs),
    /// Search benchmark: engines compared on the same positions (nodes, depth, time), or
    /// without a GAME the fixed benchmark (its node total is the search's fingerprint).
    #[command(after_help = bench::help())]
    Bench(BenchArgs),
    /// Outside programs: check that one speaks its protocol.
    Engine(engine::EngineArgs),
    /// Write a run's games as records other tools read (PGN, GGF, WThor, move lists, PSQ, SGF).
    Export(ExportArgs),
    /// Rate the games of result PGN, WThor (.wtb) or GGF files with joute's statistics.
    Rate(RateArgs),
    /// Fit evaluation weights to games logs by logistic regression (Texel's method).
    Fit(FitArgs),
}

/// Arguments of `joute run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Tournament spec (TOML; every key in docs/spec.md); the embedded quickstart when omitted.
    /// Paths inside it (engines' commands, weights, openings files) are relative to its folder.
    pub spec: Option<PathBuf>,
    /// Output folder, relative to the current folder (default: reports/NAME/ there).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, visible_alias = "concurrency")]
    pub threads: Option<usize>,
    /// With `affinity = true`, or engines whose `threads` with the games at once exceed the
    /// cores, share cores between games on a clock anyway (refused otherwise: two games'
    /// engines on one core get less CPU than their time allows).
    #[arg(long)]
    pub oversubscribe: bool,
    /// Continue an interrupted run from its games log.
    #[arg(long, conflicts_with = "fresh")]
    pub resume: bool,
    /// Start afresh in the output folder: first remove the run it holds (the files its
    /// run.json lists as joute's; any other file stays).
    #[arg(long)]
    pub fresh: bool,
    /// Write into an existing --out folder of other files that holds no run (refused
    /// otherwise: joute would replace its index.html, ratings.csv, ...).
    #[arg(long)]
    pub force: bool,
    /// Play only shard I of N (I from 0 to N-1): both games of every opening pair whose opening
    /// o and pairing q have (o + q) mod N = I, into OUT/shard-I-of-N/ (OUT: --out, or
    /// reports/NAME), so every shard can be given the same --out; `joute report` merges them.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Print only the final table.
    #[arg(long)]
    pub quiet: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// Print every cost figure — nodes per move (mean, median), depth, time per move (mean,
    /// 95th percentile), nodes per second, CPU time — not only the compact cost table.
    #[arg(long)]
    pub cost: bool,
    /// Anchor the ratings the run reports: ENGINE fixed at ELO (0 when `=ELO` is left out),
    /// whatever the spec said; `--anchor mean` puts the mean of the rated engines at 0. Not part
    /// of the spec: a resumed run may take another, and `joute report --anchor` redraws it.
    #[arg(long, value_name = "ENGINE=ELO")]
    pub anchor: Option<String>,
    /// Print the head-to-head block (Elo ±, nElo, LOS, the pentanomial counts, the SPRT's LLR
    /// and bounds) every N games while a two-engine run plays, on stderr as the progress
    /// (fastchess's -ratinginterval); default 100, 0 for none; --quiet and --json print none.
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
    /// Exit with the SPRT's verdict: 0 when H1 is accepted, 10 when H0 is, 11 when the test
    /// ended undecided (the game cap); 2 for bad input and 130 for Ctrl-C as always.
    #[arg(long)]
    pub sprt_exit_code: bool,
    /// While it plays, serve the run's page live on this address (default 127.0.0.1 on a free
    /// port; the URL is printed): it redraws itself as games finish.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = serve::DEFAULT_ADDR)]
    pub serve: Option<String>,
}

/// Arguments of `joute match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// First engine: built-in, ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml] (pvs:8, mcts:2000,
    /// pvs:200ms, random), or an outside program, cmd=PROGRAM,proto=PROTOCOL[,name=N][,arg=A]...
    /// (see below).
    pub engine_a: String,
    /// Second engine, written the same way.
    pub engine_b: String,
    /// A game clock for both engines, [MOVES/]SECONDS[+INCREMENT]: 10+0.1, 40/60, 1:30+1.
    #[arg(long, value_name = "TC", allow_hyphen_values = true)]
    pub tc: Option<String>,
    /// A fixed time per move for both engines: 100ms, 0.5s.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub st: Option<String>,
    /// Overrun forgiven on each move before a loss on time (default 0): 50ms.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub timemargin: Option<String>,
    /// Number of games (even: openings are played twice, colours swapped); default 100, or a
    /// cap of 10000 with --sprt.
    #[arg(long)]
    pub games: Option<u64>,
    /// Plies of the random openings (default: Othello 6, Connect 4 4, Morpion 2; more when
    /// many openings are needed).
    #[arg(long)]
    pub openings: Option<u32>,
    /// When the board has fewer distinct openings than pairs (small Morpion boards): play
    /// them in turn instead of refusing; engines with random choices still play different
    /// games.
    #[arg(long)]
    pub repeat_openings: bool,
    /// Seed of the openings and of every random choice.
    #[arg(long, visible_alias = "srand")]
    pub seed: Option<u64>,
    /// Stop early by SPRT between these Elo bounds: ELO0,ELO1 (logistic, α = β = 5%),
    /// ELO0,ELO1,MODEL (logistic or normalized), or fastchess's
    /// elo0=0,elo1=10,alpha=0.05,beta=0.05,model=normalized (alpha, beta and model optional).
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    pub sprt: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, visible_alias = "concurrency")]
    pub threads: Option<usize>,
    /// Pin each concurrent game, both its engines, to cores of its own (a spec's
    /// `affinity = true`; Linux).
    #[arg(long)]
    pub affinity: bool,
    /// With --affinity, share cores between games on a clock anyway (refused otherwise).
    #[arg(long, requires = "affinity")]
    pub oversubscribe: bool,
    /// Keep the match in this folder: games.jsonl (every game, appended as played), run.json,
    /// ratings.csv, crosstable.csv, pairs.csv, the charts (SVG and PNG) and index.html
    /// (default: nothing is kept).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write game records into --out as the games are played (cutechess' -pgnout), comma
    /// separated: pgn (any game), ggf and wtb (Othello), moves (Connect 4), psq and sgf
    /// (Morpion); as a spec's [output] records.
    #[arg(long, value_name = "FORMATS")]
    pub records: Option<String>,
    /// Continue an interrupted match from the log in --out.
    #[arg(long, conflicts_with = "fresh")]
    pub resume: bool,
    /// Start afresh in --out: first remove the match it holds (the files its run.json lists
    /// as joute's; any other file stays).
    #[arg(long, requires = "out")]
    pub fresh: bool,
    /// Write into an existing --out folder of other files that holds no run (refused
    /// otherwise).
    #[arg(long)]
    pub force: bool,
    /// Print only the final table.
    #[arg(long)]
    pub quiet: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// Print every cost figure — nodes per move (mean, median), depth, time per move (mean,
    /// 95th percentile), nodes per second, CPU time — not only the compact cost table.
    #[arg(long)]
    pub cost: bool,
    /// Anchor the ratings the run reports: ENGINE fixed at ELO (0 when `=ELO` is left out),
    /// whatever the spec said; `--anchor mean` puts the mean of the rated engines at 0. Not part
    /// of the spec: a resumed run may take another, and `joute report --anchor` redraws it.
    #[arg(long, value_name = "ENGINE=ELO")]
    pub anchor: Option<String>,
    /// While it plays, serve the run's page live on this address (default 127.0.0.1 on a free
    /// port; the URL is printed): it redraws itself as games finish.
    /// Print the head-to-head block (Elo ±, nElo, LOS, the pentanomial counts, the SPRT's LLR
    /// and bounds) every N games while a two-engine run plays, on stderr as the progress
    /// (fastchess's -ratinginterval); default 100, 0 for none; --quiet and --json print none.
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
    /// Exit with the SPRT's verdict: 0 when H1 is accepted, 10 when H0 is, 11 when the test
    /// ended undecided (the game cap); 2 for bad input and 130 for Ctrl-C as always.
    #[arg(long)]
    pub sprt_exit_code: bool,
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = serve::DEFAULT_ADDR)]
    pub serve: Option<String>,
}

/// Arguments of `joute tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Tuning spec (TOML; every key in docs/spec.md).
    pub spec: PathBuf,
    /// Output folder (default: reports/NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, visible_alias = "concurrency")]
    pub threads: Option<usize>,
    /// Continue an interrupted run from its checkpoint.
    #[arg(long, conflicts_with = "fresh")]
    pub resume: bool,
    /// Start afresh in the output folder: first remove the run it holds (the files its
    /// checkpoint.json lists as joute's; any other file stays).
    #[arg(long, conflicts_with = "shard")]
    pub fresh: bool,
    /// Also write the tuned weights (or an outside program's tuned options) to this file (they
    /// are always in the run's folder as tuned-weights.toml, tuned-weights.jpw for a pattern
    /// regression: then a .jpw file, or tuned-options.toml);
    /// overrides the spec's weights_out. An existing file is replaced only with --force.
    #[arg(long, value_name = "PATH")]
    pub write_weights: Option<PathBuf>,
    /// Replace the file named by --write-weights (or weights_out) if it exists, and write into
    /// an existing --out folder of other files that holds no run.
    #[arg(long)]
    pub force: bool,
    /// Cap on the number of games, confirmation included (the confirmation then gets at most
    /// a quarter, the A/A match a tenth).
    #[arg(long, value_name = "GAMES")]
    pub budget: Option<u64>,
    /// A regression run (method = "regression") played by N processes sharing OUT, on one
    /// machine or cluster nodes, with no server: this one is shard I (0 to N-1). Each plays
    /// the self-play games whose id is I mod N into OUT/shard-I-of-N/; one fits each round
    /// and the others wait for it; the one that fits the last round plays the confirmation
    /// and A/A matches. The weights and history are the unsharded run's, bit for bit.
    /// Every shard takes the same SPEC, --out and --budget; --resume continues a killed shard.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Print only the final table.
    #[arg(long)]
    pub quiet: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// While it runs, serve the tuning page live on this address (default 127.0.0.1 on a free
    /// port; the URL is printed): its charts, history and current weights (or options) redraw themselves
    /// as candidates finish, and it shows the confirmation once the run ends.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = serve::DEFAULT_ADDR)]
    pub serve: Option<String>,
}

/// Arguments of `joute report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Game logs (games.jsonl); shards of one run merge.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Output folder (default: the log's folder; for several logs, reports/NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into an existing --out folder of other files that holds no run or report
    /// (refused otherwise: joute would replace its index.html, ratings.csv, ...).
    #[arg(long)]
    pub force: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// Print every cost figure — nodes per move (mean, median), depth, time per move (mean,
    /// 95th percentile), nodes per second, CPU time — not only the compact cost table.
    #[arg(long)]
    pub cost: bool,
    /// Re-anchor the ratings: ENGINE fixed at ELO (0 when `=ELO` is left out), whatever the
    /// spec said; `--anchor mean` puts the mean of the rated engines at 0.
    #[arg(long, value_name = "ENGINE=ELO")]
    pub anchor: Option<String>,
    /// The rating model's first-move advantage, whatever the spec said: `fit` or `ignore`.
    #[arg(long, value_name = "MODEL", value_parser = ["fit", "ignore"])]
    pub first_move: Option<String>,
}

/// Arguments of `joute perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// Plies to count, 1..=64; every depth up to this one is printed.
    #[arg(value_parser = parse_depth, allow_negative_numbers = true)]
    pub depth: u32,
    /// Print the count under each first move at the final depth.
    #[arg(long)]
    pub divide: bool,
    /// Threads over which the first plies are spread.
    #[arg(long, visible_alias = "concurrency", default_value_t = 1, value_parser = parse_threads)]
    pub threads: usize,
    /// Start from this position instead of the start (the game's position notation).
    #[arg(long, allow_hyphen_values = true)]
    pub position: Option<String>,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// Position in the game's notation (default: the start).
    #[arg(allow_hyphen_values = true)]
    pub position: Option<String>,
    /// A test suite: solve every position and check it against its known value.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Stop after this long (e.g. 30s, 500ms; at most a day) and report the bounds proven.
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// Stop after this many positions (at most 10^15) and report the bounds proven.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Transposition table size in MiB (default: Connect 4 64, Othello 32; 1..=8192).
    #[arg(long, value_name = "MB")]
    pub hash: Option<u64>,
    /// Threads of an Othello solve (1..=256; default 1, whose node counts compare with
    /// published ones): the score and best moves are the same, the node count varies.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: u64,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// Engine moving first, ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml] (pvs:8, mcts:2000,
    /// pvs:200ms, random), or an outside program as `joute match` takes it:
    /// cmd=python3,arg=engine.py,proto=line.
    pub engine_a: String,
    /// Engine moving second, as the first.
    pub engine_b: String,
    /// Moves played before the engines take over.
    #[arg(long, allow_hyphen_values = true)]
    pub opening: Option<String>,
    /// Seed of the engines' random choices (MCTS playouts, random moves, tie-breaking).
    #[arg(long)]
    pub seed: Option<u64>,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// What to analyse: random-tree.
    pub subject: String,
    /// Children of every inner node.
    #[arg(long)]
    pub branching: Option<u32>,
    /// Plies from the root to the leaves.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Number of trees.
    #[arg(long)]
    pub trees: Option<u32>,
    /// Seed of the first tree.
    #[arg(long)]
    pub seed: Option<u64>,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute features`.
#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// The game.
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The game of the positions (default: the fixed benchmark, several games).
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: Option<GameKind>,
    /// Engines to compare, each searching every position, written as for `joute play`
    /// (alphabeta:5, pvs:8:exact=20, mcts:2000, pvs:200ms; see below); with --depth, an
    /// algorithm alone (pvs) searches to that depth.
    #[arg(requires = "game")]
    pub engines: Vec<String>,
    /// Positions, one a line: an openings file (each line's moves from the start, what `joute
    /// openings` writes) or a test suite as `joute solve --file` reads it (Othello FFO lines,
    /// Connect 4 `MOVES SCORE`).
    #[arg(
        long,
        value_name = "FILE",
        requires = "game",
        conflicts_with = "random"
    )]
    pub positions: Option<PathBuf>,
    /// N distinct positions, each reached by --plies random moves from the start (attempts in
    /// which the game ends are skipped).
    #[arg(long, value_name = "N", requires_all = ["game", "plies"])]
    pub random: Option<u32>,
    /// With --random: the random plies from the start to each position.
    #[arg(
        long,
        value_name = "P",
        requires = "random",
        conflicts_with = "positions"
    )]
    pub plies: Option<u32>,
    /// With --random: the seed of the random plies (default 1).
    #[arg(
        long,
        value_name = "S",
        requires = "random",
        conflicts_with = "positions"
    )]
    pub seed: Option<u64>,
    /// The depth of every engine written without a budget (pvs, alphabeta:exact=0); an engine
    /// with a depth of its own is then refused, one with nodes, a time or mcts playouts keeps
    /// its budget.
    #[arg(long, value_name = "D", value_parser = parse_depth, requires = "game")]
    pub depth: Option<u32>,
    /// Also print each position's nodes, engine by engine.
    #[arg(long, requires = "game")]
    pub each: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// The games joute plays, as the help of a GAME argument lists them.
const GAME_HELP: &str = "Game: othello, connect4, morpion (3x3, 3 in a row), morpion-RxC-K (R rows \
                         and C columns up to 15, K or more in a row win), morpion-RxC-K-exact \
                         (exactly K), renju (15x15; morpion-RxC-5-renju on other boards), \
                         random-tree-BxD[-sSEED] (branching B up to 64, depth D up to 32)";

/// Where a spec's keys are documented, for the help of the commands that read one.
const SPEC_REFERENCE: &str = "Every key of a spec, with what is allowed: docs/spec.md \
                              (examples: tournaments/).";

/// The engine syntax, for the help of the commands that take engines on the command line.
fn engine_help() -> String {
    let algorithms: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    format!(
        "Engines: ALGORITHM[:BUDGET][:exact=N][:WEIGHTS.toml]
  ALGORITHM  {}
  BUDGET     a depth 1..={} (mcts: playouts), nN a node budget (mcts: playouts), or a
             time per move such as 0.5s or 200ms (results then depend on the machine);
             random takes none
  exact=N    solve exactly once N empty squares are left, the game's solver choosing the
             move (0: never; default for pvs and mtdf: Othello 2*depth+4, at most {},
             {} under a budget; Connect 4 2*depth+4, at most {}, 0 under a budget;
             otherwise 0)
  near=N     pvs and mtdf: search only the cells within N rows and columns of a mark
             (Morpion, renju; 0: every move, the default), e.g. pvs:6:near=2
  threats=1  pvs and mtdf in Morpion and renju: the threat search (forced answers to fours
             and open threes, fours first, a win by continuous fours played at once)
  vcf=N      with threats=1: a search for a win by continuous fours at every leaf, within
             N nodes, e.g. pvs:6:near=2:threats=1:vcf=100
  vct=N      with threats=1: at the root, a win by continuous threes and fours played at
             once, and a move after which the opponent has one searched again without it;
             each search within N nodes, e.g. pvs:6:near=2:threats=1:vct=100000
  lmr=1      with threats=1: late move reductions (quiet moves after the first three
             searched a ply shallower first), e.g. pvs:8:near=2:threats=1:lmr=1
  WEIGHTS    a weights file for the game (default: its built-in weights; see joute features)
Examples: alphabeta:6, pvs:n200000, mcts:2000, pvs:200ms, pvs:8:weights/othello.toml,
          pvs:8:exact=0:weights/othello-patterns.jpw, random",
        algorithms.join(", "),
        joute::search::MAX_DEPTH,
        joute::search::endgame::OTHELLO_EXACT,
        joute::search::endgame::OTHELLO_EXACT,
        joute::search::endgame::CONNECT4_EXACT
    )
}

fn match_help() -> String {
    format!(
        "{}

Outside programs: comma-separated KEY=VALUE words (docs/protocols.md)
  keys       {}
Examples: cmd=./lEdax-x86-64-v3,proto=gtp,name=edax,args=-gtp -n 1 -l 4 -book-usage off
          cmd=python3,arg=examples/engines/connect4.py,proto=line
A built-in engine may be followed by {}: pvs:30,name=fast,st=50ms
Time odds: tc=, st= and timemargin= give one engine its own clock, in place of --tc/--st.",
        engine_help(),
        joute::arena::spec::MatchEngine::KEYS,
        joute::arena::spec::MatchEngine::BUILT_IN_KEYS
    )
}

fn parse_game(text: &str) -> Result<GameKind, String> {
    GameKind::parse(text).map_err(|e| e.to_string())
}

/// The deepest perft or search joute accepts.
pub const MAX_DEPTH: u32 = 64;

fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse::<i64>() {
        Ok(d) if (1..=MAX_DEPTH as i64).contains(&d) => Ok(d as u32),
        Ok(d) => Err(format!(
            "depth {d} is out of range; it must be between 1 and {MAX_DEPTH}"
        )),
        Err(_) => Err(format!(
            "depth must be a whole number between 1 and {MAX_DEPTH}"
        )),
    }
}

fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<i64>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n as usize),
        _ => Err("threads must be a whole number between 1 and 1024".into()),
    }
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(args) => {
            let kind = args.game;
            kind.dispatch(perft::PerftCommand { args })
        }
        Command::Features(args) => features(&args),
        Command::Run(args) => run::run(&args),
        Command::Match(args) => run::run_match(&args),
        Command::Tune(args) => tune::tune(&args),
        Command::Report(args) => run::report(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Play(args) => {
            let kind = args.game;
            joute::eval::dispatch(&kind, play::PlayCommand { args })
        }
        Command::Analyze(args) => analyze::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Engine(args) => engine::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Rate(args) => rate::run(&args),
        Command::Fit(args) => fit::run(&args),
        Command::Openings(args) => openings::run(&args),
    }
}

fn features(args: &FeaturesArgs) -> anyhow::Result<()> {
    struct List(bool);
    impl joute::eval::FeaturesVisitor for List {
        type Output = std::io::Result<()>;
        fn visit<G: joute::eval::Features>(self, start: G) -> std::io::Result<()> {
            let features = start.features();
            let defaults = joute::eval::Weights::default_for(&start);
            if self.0 {
                let rows: Vec<_> = features
                    .iter()
                    .zip(&defaults.values)
                    .map(|(f, w)| json!({"name": f.name, "meaning": f.meaning, "default": w}))
                    .collect();
                say!("{}", json!({ "game": start.name(), "features": rows }))
            } else {
                say!(
                    "{}: {} feature{} (default weight, name, meaning)",
                    start.name(),
                    features.len(),
                    if features.len() == 1 { "" } else { "s" }
                )?;
                let width = features.iter().map(|f| f.name.len()).max().unwrap_or(0);
                for (f, w) in features.iter().zip(&defaults.values) {
                    say!("{w:>8} {:<width$} {}", f.name, f.meaning)?;
                }
                Ok(())
            }
        }
    }
    joute::eval::dispatch(&args.game, List(args.json))?;
    Ok(())
}

/// Arguments of `joute export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Game logs (games.jsonl) of one run; shards merge.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// The record format: pgn (any game; results only), csv (any game; one numeric row per
    /// game with each side's cost, for data tools), ggf or wtb (othello), moves (connect4),
    /// psq or sgf (morpion).
    #[arg(long)]
    pub format: String,
    /// Where to write (default: beside the log, games.pgn, games.csv, games.ggf, games.wtb with
    /// games.jou, games.moves, games.sgf, or the folder games-psq/ for PSQ). Never an input
    /// or a run's own file; an existing file is replaced only with --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the files named by --out if they exist.
    #[arg(long)]
    pub force: bool,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute fit`.
#[derive(Args, Debug)]
pub struct FitArgs {
    /// Game logs (games.jsonl), all of one game (each folder's run.json names it).
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// The start weights, a weights file of the game (default: the game's defaults); K is
    /// fitted to them and the ridge pulls towards them. With --patterns: a pattern weights
    /// file (default: zeros), refined by the logs' positions; in other phases than --phases,
    /// each phase starts from the one holding the middle of its range.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Where to write the fitted weights (default: fitted-weights.toml beside the first log).
    /// Never an input or a run's own file; an existing file is replaced only with --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the file named by --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Record no position before this ply (the opening's never are).
    #[arg(long, default_value_t = 0)]
    pub skip_plies: usize,
    /// At most this many positions of each game, drawn at random (seeded).
    #[arg(long)]
    pub max_per_game: Option<usize>,
    /// Seed of the per-game samples.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The ridge towards the start weights, on standardised features (0 to 1e6).
    #[arg(long, default_value_t = joute::tune::fit::regression::DEFAULT_LAMBDA, allow_negative_numbers = true)]
    pub lambda: f64,
    /// Fit tapered weights: an opening and an endgame vector, interpolated by the game's
    /// progress (the file gets an [endgame] table).
    #[arg(long)]
    pub taper: bool,
    /// Label the positions with at most this many empty squares (cells) by their result
    /// under perfect play, solved by the game's exact solver, instead of their game's result
    /// (0: never; at most 24).
    #[arg(long, default_value_t = 0)]
    pub exact_labels: u32,
    /// Fit Othello's pattern evaluation (thousands of weights per phase, from zero or from
    /// --weights) instead of the game's linear features; writes a binary pattern weights file (default:
    /// fitted-patterns.jpw beside the first log).
    #[arg(long)]
    pub patterns: bool,
    /// With --patterns: phases of weights, 1..=60 (by the number of empty squares).
    #[arg(long, default_value_t = 6)]
    pub phases: usize,
    /// With --patterns: each phase also learns from the positions within this many empty
    /// squares of its own range (neighbouring phases share positions; 0: none, at most 60).
    #[arg(long, default_value_t = 0)]
    pub phase_overlap: usize,
    /// With --patterns: the ridge α towards the start weights (0 without --weights), in
    /// positions (each weight is pulled to its start as if by α positions that say nothing).
    #[arg(long, default_value_t = joute::tune::fit::pattern_fit::DEFAULT_PATTERN_RIDGE, allow_negative_numbers = true)]
    pub ridge: f64,
    /// With --patterns: label the positions (those --exact-labels leaves) by this engine's
    /// search instead of their games' results: an engine word with a depth and a pattern
    /// weights file, e.g. `pvs:6:weights/othello-patterns.jpw`; label σ(score/1024) (see
    /// docs/tuning.md, "Labels").
    #[arg(long, value_name = "ENGINE")]
    pub search_labels: Option<String>,
    /// With --search-labels: the share of the search's label, above 0 and at most 1 (the rest
    /// is the game's result).
    #[arg(long, default_value_t = 1.0)]
    pub search_mix: f64,
    /// With --patterns: label the positions (those --exact-labels leaves) by their game's final
    /// margin m for the side to move (Othello: discs, -64 to 64) instead of its result, as
    /// σ(m / SCALE), SCALE in discs (above 0, at most 64); games that did not end by the rules
    /// keep their result.
    #[arg(long, value_name = "SCALE")]
    pub margin_labels: Option<f64>,
    /// With --patterns: the most L-BFGS iterations of each phase's fit, 1 to 100000 (default
    /// 300); a phase stops sooner when an iteration lowers its objective by less than a
    /// relative 1e-7.
    #[arg(long)]
    pub max_iterations: Option<usize>,
    /// With --patterns: hold the count types' weights (mobility, potential mobility, parity) at
    /// the start's (0 without --weights) and fit the patterns only.
    #[arg(long)]
    pub hold_counts: bool,
    /// With --patterns: write the weights as CSV (the non-zero ones, readable) instead of
    /// binary.
    #[arg(long)]
    pub csv: bool,
    /// The game of the logs, for logs without a run.json beside them (the self-play logs of
    /// a regression tuning run).
    #[arg(long, value_parser = parse_game)]
    pub game: Option<GameKind>,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `joute rate`.
#[derive(Args, Debug)]
pub struct RateArgs {
    /// Record files: .pgn (White moved first), .wtb (WThor; names from the .jou beside it),
    /// .ggf, or joute games logs (games.jsonl with its run.json) of one or more runs, rated
    /// jointly: engines matched by name, one name with two configurations refused.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also write ratings.csv, scale.csv and (for games logs) cost.csv into this folder (existing ones are replaced only
    /// with --force).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace ratings.csv, scale.csv and cost.csv in --out if they exist.
    #[arg(long)]
    pub force: bool,
    /// Fix PLAYER at ELO (0 when `=ELO` is left out); default: the mean is 0.
    #[arg(long, value_name = "PLAYER=ELO")]
    pub anchor: Option<String>,
    /// The first-move advantage: `fit` (default) or `ignore`.
    #[arg(long, value_name = "MODEL", value_parser = ["fit", "ignore"])]
    pub first_move: Option<String>,
    /// One JSON object on stdout and nothing else.
    #[arg(long)]
    pub json: bool,
    /// Print every cost figure — nodes per move (mean, median), depth, time per move (mean,
    /// 95th percentile), nodes per second, CPU time — not only the compact cost table.
    #[arg(long)]
    pub cost: bool,
}

/// Arguments of `joute openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    /// The game: connect4 (exact scores), othello (8-move XOT-style openings) or a morpion
    /// board (Gomocup openings).
    #[arg(value_parser = parse_game, help = GAME_HELP)]
    pub game: GameKind,
    /// Plies of every opening (default: Connect 4 6, Othello 8, Morpion 4; Morpion 1 to 20).
    #[arg(long)]
    pub plies: Option<u32>,
    /// Openings in the suite.
    #[arg(long, default_value_t = 100)]
    pub count: u32,
    /// Seed of the random candidates: the same command gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Largest score kept (Connect 4: |exact score| in Pons' convention, default 2; Othello:
    /// weight units of the pvs score, default 8).
    #[arg(long, allow_negative_numbers = true)]
    pub max_score: Option<f64>,
    /// Othello: depth of the pvs search that scores each opening (default 10).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Write the suite to this file (default: stdout); an existing file is replaced only with
    /// --force.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the file named by --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// One JSON object on stdout (the openings and the header) instead of the file's text.
    #[arg(long)]
    pub json: bool,
}
