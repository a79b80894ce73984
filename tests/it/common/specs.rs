//! Tournament spec texts built from their parts, for the suites that write a spec of a few
//! engines again and again: `spec("c4", "connect4", 3, 4, 3).engines(&["random", "ab-1"])`.
//! The text is laid out as the suites wrote it by hand (a blank line before each table), so
//! that `str::replace` on one of its lines keeps working.

/// A spec's text under construction: its head, then engines and tables in the order added.
pub struct Spec(String);

/// The head of a spec: `name`, `game`, `seed` and the openings (`plies`, `count`), no engine.
pub fn spec(name: &str, game: &str, seed: u64, plies: u32, count: u32) -> Spec {
    Spec(format!(
        "\nname = \"{name}\"\ngame = \"{game}\"\nseed = {seed}\n\
         openings = {{ plies = {plies}, count = {count} }}\n"
    ))
}

impl Spec {
    /// Adds an engine named `name` playing `algorithm`, with its `setting` line
    /// (`depth = 2`, `playouts = 50`; empty for none).
    pub fn engine(mut self, name: &str, algorithm: &str, setting: &str) -> Spec {
        self.0 += &format!("\n[[engine]]\nname = \"{name}\"\nalgorithm = \"{algorithm}\"\n");
        if !setting.is_empty() {
            self.0 += setting;
            self.0.push('\n');
        }
        self
    }

    /// Adds engines named as the suites name them, their algorithm and setting read from the
    /// name: `ab-N` is alphabeta at depth N, `mcts-N` MCTS with N playouts, `ALGO-N` (pvs,
    /// mtdf, alphabeta…) ALGO at depth N, and a name without a number (`random`) that algorithm
    /// with no setting.
    pub fn engines(mut self, names: &[&str]) -> Spec {
        for name in names {
            self = match name.rsplit_once('-') {
                None => self.engine(name, name, ""),
                Some((kind, n)) => {
                    let algorithm = if kind == "ab" { "alphabeta" } else { kind };
                    let key = if kind == "mcts" { "playouts" } else { "depth" };
                    self.engine(name, algorithm, &format!("{key} = {n}"))
                }
            };
        }
        self
    }

    /// Appends `text` as it is (a table such as `\n[sprt]\nelo0 = 0\n…`).
    pub fn with(mut self, text: &str) -> Spec {
        self.0 += text;
        self
    }

    /// The spec's text.
    pub fn text(self) -> String {
        self.0
    }
}
