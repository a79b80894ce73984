//! Pattern weights and their files: the binary `.jpw` format and the CSV form, read and
//! written.

use super::*;

/// The binary file's first bytes.
pub const MAGIC: &[u8; 8] = b"JOUTEPAT";

/// The binary format's version written: 2, whose phases hold the count features' weights.
/// Version 1 files (the patterns and the bias alone) are read too, their count weights 0.
pub const VERSION: u32 = 2;

/// Bytes before the weights in a binary file: magic, version, phases, weights per phase.
pub(super) const HEADER_LEN: usize = 20;

/// The start of a CSV file's first line, before `, phases = P`.
pub const CSV_FIRST_LINE: &str = "# joute pattern weights";

/// A CSV file's column header.
pub const CSV_HEADER: &str = "phase,pattern,config,weight";

/// Pattern weights: [`WEIGHTS_PER_PHASE`] per phase, phase-major.
#[derive(Clone, PartialEq)]
pub struct PatternWeights {
    /// The number of phases, 1..=[`MAX_PHASES`].
    pub phases: usize,
    /// `values[phase * WEIGHTS_PER_PHASE + index]`, `index` as [`feature_indices`] gives it.
    pub values: Vec<f32>,
    /// Where the weights came from: a file path, or a description.
    pub origin: String,
}

impl fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PatternWeights")
            .field("phases", &self.phases)
            .field("values", &format_args!("[{} f32]", self.values.len()))
            .field(
                "non_zero",
                &self.values.iter().filter(|&&v| v != 0.0).count(),
            )
            .field("origin", &self.origin)
            .finish()
    }
}

/// A refusal of a binary or whole file.
fn file_error(file: &str, reason: impl Into<String>) -> EvalError {
    EvalError::PatternFile {
        file: file.to_string(),
        reason: reason.into(),
    }
}

/// A refusal of a CSV line.
fn csv_error(file: &str, line: usize, field: &str, reason: impl Into<String>) -> EvalError {
    EvalError::PatternCsv {
        file: file.to_string(),
        line,
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// The phase and content of a position in the values, for messages.
fn describe_position(at: usize) -> String {
    format!(
        "phase {}, {}",
        at / WEIGHTS_PER_PHASE,
        describe_index(at % WEIGHTS_PER_PHASE)
    )
}

/// Why a phase count is refused, if it is.
fn check_phases(phases: u64) -> Result<usize, String> {
    if (1..=MAX_PHASES as u64).contains(&phases) {
        Ok(phases as usize)
    } else {
        Err(format!("{phases} phases; allowed: 1..={MAX_PHASES}"))
    }
}

impl PatternWeights {
    /// `phases` phases of zero weights.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn zeros(phases: usize) -> Self {
        assert!(
            (1..=MAX_PHASES).contains(&phases),
            "{phases} phases; allowed: 1..={MAX_PHASES}"
        );
        PatternWeights {
            phases,
            values: vec![0.0; phases * WEIGHTS_PER_PHASE],
            origin: "zeros".into(),
        }
    }

    /// The same weights in `phases` phases: each new phase takes the weights of the old phase
    /// that holds the middle of its range of empty squares (a start for a fit in more or
    /// fewer phases); a copy when they are in `phases` already.
    ///
    /// # Panics
    /// When `phases` is not in 1..=[`MAX_PHASES`].
    pub fn in_phases(&self, phases: usize) -> Self {
        if phases == self.phases {
            return self.clone();
        }
        let mut out = Self::zeros(phases);
        for (q, block) in out.values.chunks_exact_mut(WEIGHTS_PER_PHASE).enumerate() {
            // Phase q holds the positions of (60 − empties)·phases/60 = q: its middle, in
            // discs played, is about (q + ½)·60/phases.
            let middle = (2 * q + 1) * 60 / (2 * phases);
            let old = middle.min(59) * self.phases / 60;
            block.copy_from_slice(&self.values[old * WEIGHTS_PER_PHASE..][..WEIGHTS_PER_PHASE]);
        }
        out.origin = format!("{} in {phases} phases", self.origin);
        out
    }

    /// Whether the file at `path` starts like a pattern weights file: the binary magic, the
    /// CSV first line or the CSV header. Reads at most 64 bytes; false when it cannot be read.
    pub fn is_pattern_file(path: &Path) -> bool {
        let Ok(file) = File::open(path) else {
            return false;
        };
        let mut start = Vec::with_capacity(64);
        if file.take(64).read_to_end(&mut start).is_err() {
            return false;
        }
        Self::looks_like_pattern_file(&start)
    }

    fn looks_like_pattern_file(start: &[u8]) -> bool {
        start.starts_with(MAGIC)
            || start.starts_with(CSV_FIRST_LINE.as_bytes())
            || start.starts_with(CSV_HEADER.as_bytes())
    }

    /// Reads a weights file, binary or CSV (told apart by their first bytes); `origin` becomes
    /// the path.
    pub fn load(path: &Path) -> Result<Self, EvalError> {
        let file = path.display().to_string();
        let bytes = crate::inputs::read(path, crate::inputs::Input::Weights).map_err(|e| {
            EvalError::Io {
                file: file.clone(),
                reason: e.to_string(),
            }
        })?;
        Self::parse(&bytes, &file)
    }

    /// Reads weights from the content of a file; `origin` names it in errors and becomes
    /// [`PatternWeights::origin`].
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, EvalError> {
        if bytes.starts_with(MAGIC) {
            return Self::parse_binary(bytes, origin);
        }
        if bytes.starts_with(b"#") || bytes.starts_with(CSV_HEADER.as_bytes()) {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                csv_error(origin, line, "(line)", "not UTF-8 text")
            })?;
            return Self::parse_csv(text, origin);
        }
        let shown: String = bytes
            .iter()
            .take(8)
            .map(|&b| {
                if b.is_ascii_graphic() {
                    (b as char).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect();
        Err(file_error(
            origin,
            format!(
                "not a pattern weights file: it starts with \"{shown}\"; expected the binary magic \"JOUTEPAT\" or the CSV first line \"{CSV_FIRST_LINE}, phases = P\""
            ),
        ))
    }

    fn parse_binary(bytes: &[u8], origin: &str) -> Result<Self, EvalError> {
        if bytes.len() < HEADER_LEN {
            return Err(file_error(
                origin,
                format!(
                    "truncated header: {} bytes; a binary pattern weights file starts with {HEADER_LEN} (magic, version, phases, weights per phase)",
                    bytes.len()
                ),
            ));
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let version = word(8);
        let expected = match version {
            1 => V1_WEIGHTS_PER_PHASE,
            VERSION => WEIGHTS_PER_PHASE,
            _ => {
                return Err(file_error(
                    origin,
                    format!("format version {version}; this joute reads versions 1 and {VERSION}"),
                ));
            }
        };
        let phases = check_phases(word(12) as u64).map_err(|r| file_error(origin, r))?;
        let per_phase = word(16) as usize;
        if per_phase != expected {
            return Err(file_error(
                origin,
                format!("{per_phase} weights per phase; format version {version} has {expected}"),
            ));
        }
        let body = bytes.len() - HEADER_LEN;
        let needed = phases * per_phase;
        if !body.is_multiple_of(4) || body / 4 != needed {
            let stray = if !body.is_multiple_of(4) {
                format!(" and {} stray bytes", body % 4)
            } else {
                String::new()
            };
            return Err(file_error(
                origin,
                format!(
                    "wrong size: the file holds {} weights{stray} after its {HEADER_LEN}-byte header, but {phases} phases of {per_phase} weights need {needed} ({} bytes in all)",
                    body / 4,
                    HEADER_LEN + 4 * needed
                ),
            ));
        }
        let mut values = vec![0.0; phases * WEIGHTS_PER_PHASE];
        for (at, chunk) in bytes[HEADER_LEN..].chunks_exact(4).enumerate() {
            let w = f32::from_le_bytes(chunk.try_into().unwrap());
            // A version 1 phase is the patterns and the bias: the counts between stay 0.
            let (phase, index) = (at / per_phase, at % per_phase);
            let index = if index == per_phase - 1 {
                BIAS_INDEX
            } else {
                index
            };
            let to = phase * WEIGHTS_PER_PHASE + index;
            check_weight(w as f64).map_err(|reason| {
                file_error(
                    origin,
                    format!("weight {at} ({}): {reason}", describe_position(to)),
                )
            })?;
            values[to] = w;
        }
        Ok(PatternWeights {
            phases,
            values,
            origin: origin.to_string(),
        })
    }

    fn parse_csv(text: &str, origin: &str) -> Result<Self, EvalError> {
        let mut lines = text.lines();
        let first = lines.next().unwrap_or("");
        let phases = parse_first_line(first).map_err(|r| csv_error(origin, 1, "phases", r))?;
        let mut values = vec![0.0f32; phases * WEIGHTS_PER_PHASE];
        // The line that set each weight (0: none yet).
        let mut set_on = vec![0u32; values.len()];
        let mut header_seen = false;
        let mut line_no = 1;
        for line in lines {
            line_no += 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if !header_seen {
                if trimmed != CSV_HEADER {
                    return Err(csv_error(
                        origin,
                        line_no,
                        "header",
                        format!(
                            "expected the column header \"{CSV_HEADER}\", found \"{}\"",
                            short(trimmed)
                        ),
                    ));
                }
                header_seen = true;
                continue;
            }
            let fields: Vec<&str> = trimmed.split(',').map(str::trim).collect();
            if fields.len() != 4 {
                return Err(csv_error(
                    origin,
                    line_no,
                    "(line)",
                    format!("{} fields; a row has 4: {CSV_HEADER}", fields.len()),
                ));
            }
            let err = |field: &str, reason: String| csv_error(origin, line_no, field, reason);
            let phase: usize = fields[0].parse().map_err(|_| {
                err(
                    "phase",
                    format!("\"{}\" is not a phase number", short(fields[0])),
                )
            })?;
            if phase >= phases {
                return Err(err(
                    "phase",
                    format!(
                        "phase {phase} is out of range: the file has {phases} phases, 0..={}",
                        phases - 1
                    ),
                ));
            }
            let index = parse_pattern_config(fields[1], fields[2]).map_err(|(f, r)| err(f, r))?;
            let w: f32 = fields[3].parse().map_err(|_| {
                err(
                    "weight",
                    format!("\"{}\" is not a number", short(fields[3])),
                )
            })?;
            check_weight(w as f64).map_err(|r| err("weight", r))?;
            let at = phase * WEIGHTS_PER_PHASE + index;
            if set_on[at] != 0 {
                return Err(err(
                    "config",
                    format!(
                        "duplicate row: {} was already set on line {}",
                        describe_position(at),
                        set_on[at]
                    ),
                ));
            }
            set_on[at] = line_no as u32;
            values[at] = w;
        }
        if !header_seen {
            return Err(csv_error(
                origin,
                line_no,
                "header",
                format!("the column header \"{CSV_HEADER}\" is missing"),
            ));
        }
        Ok(PatternWeights {
            phases,
            values,
            origin: origin.to_string(),
        })
    }

    /// Checks that the values fit the phases, for the writers.
    fn check_shape(&self) -> std::io::Result<()> {
        let bad = |reason: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, reason);
        check_phases(self.phases as u64).map_err(bad)?;
        if self.values.len() != self.phases * WEIGHTS_PER_PHASE {
            return Err(bad(format!(
                "{} pattern weights for {} phases of {WEIGHTS_PER_PHASE}",
                self.values.len(),
                self.phases
            )));
        }
        Ok(())
    }

    /// Writes the binary file (see `docs/files.md`) through a temporary file renamed over
    /// `path`. Refuses (`InvalidInput`) values that do not fit the phases.
    pub fn write_binary(&self, path: &Path) -> std::io::Result<()> {
        self.check_shape()?;
        let mut bytes = Vec::with_capacity(HEADER_LEN + 4 * self.values.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.phases as u32).to_le_bytes());
        bytes.extend_from_slice(&(WEIGHTS_PER_PHASE as u32).to_le_bytes());
        for w in &self.values {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        crate::outputs::write_with(path, true, |out| out.write_all(&bytes))
    }

    /// Writes the CSV file (one row per non-zero weight; see `docs/files.md`) through a
    /// temporary file renamed over `path`. Refuses (`InvalidInput`) values that do not fit the
    /// phases.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        self.check_shape()?;
        crate::outputs::write_with(path, true, |out| {
            writeln!(out, "{CSV_FIRST_LINE}, phases = {}", self.phases)?;
            writeln!(
                out,
                "# one row per non-zero weight; config: the pattern's squares in order, x side to move, o opponent, . empty; a count's value"
            )?;
            writeln!(out, "{CSV_HEADER}")?;
            for (phase, block) in self.values.chunks_exact(WEIGHTS_PER_PHASE).enumerate() {
                for (t, ty) in PATTERN_TYPES.iter().enumerate() {
                    let weights = &block[OFFSETS[t]..OFFSETS[t] + pow3(ty.len)];
                    for (config, &w) in weights.iter().enumerate() {
                        if w != 0.0 {
                            writeln!(
                                out,
                                "{phase},{},{},{w:?}",
                                ty.name,
                                config_string(ty.len, config)
                            )?;
                        }
                    }
                }
                for (c, ty) in COUNT_TYPES.iter().enumerate() {
                    let weights = &block[COUNT_OFFSETS[c]..COUNT_OFFSETS[c] + ty.values];
                    for (value, &w) in weights.iter().enumerate() {
                        if w != 0.0 {
                            writeln!(out, "{phase},{},{value},{w:?}", ty.name)?;
                        }
                    }
                }
                let bias = block[BIAS_INDEX];
                if bias != 0.0 {
                    writeln!(out, "{phase},{BIAS_NAME},,{bias:?}")?;
                }
            }
            Ok(())
        })
    }
}

/// At most 40 characters of a field, for messages.
fn short(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// The phase count of a CSV file's first line, `# joute pattern weights, phases = P`.
fn parse_first_line(line: &str) -> Result<usize, String> {
    let expected = || {
        format!(
            "the first line must be \"{CSV_FIRST_LINE}, phases = P\" (P in 1..={MAX_PHASES}), found \"{}\"",
            short(line.trim())
        )
    };
    let rest = line
        .trim()
        .strip_prefix(CSV_FIRST_LINE)
        .ok_or_else(expected)?
        .trim_start()
        .trim_start_matches(',')
        .trim_start()
        .strip_prefix("phases")
        .ok_or_else(expected)?
        .trim_start()
        .strip_prefix('=')
        .ok_or_else(expected)?
        .trim();
    let phases: u64 = rest
        .parse()
        .map_err(|_| format!("\"{}\" is not a number of phases", short(rest)))?;
    check_phases(phases)
}

/// The index within a phase of a CSV row's pattern and config, or the field at fault and why.
fn parse_pattern_config(name: &str, config: &str) -> Result<usize, (&'static str, String)> {
    if name == BIAS_NAME {
        if !config.is_empty() {
            return Err((
                "config",
                format!(
                    "the bias has no configuration; leave the field empty, found \"{}\"",
                    short(config)
                ),
            ));
        }
        return Ok(BIAS_INDEX);
    }
    if let Some(c) = COUNT_TYPES.iter().position(|ty| ty.name == name) {
        return parse_count_value(c, config);
    }
    let Some(t) = PATTERN_TYPES.iter().position(|ty| ty.name == name) else {
        let allowed: Vec<&str> = PATTERN_TYPES
            .iter()
            .map(|ty| ty.name)
            .chain(COUNT_TYPES.iter().map(|ty| ty.name))
            .chain([BIAS_NAME])
            .collect();
        return Err((
            "pattern",
            format!(
                "unknown pattern \"{}\"; allowed: {}",
                short(name),
                allowed.join(", ")
            ),
        ));
    };
    parse_configuration(t, config)
}

/// The index within a phase of the value `config` of count type `c`.
fn parse_count_value(c: usize, config: &str) -> Result<usize, (&'static str, String)> {
    let ty = &COUNT_TYPES[c];
    let value = config
        .parse::<usize>()
        .ok()
        .filter(|&v| v < ty.values)
        .ok_or_else(|| {
            (
                "config",
                format!(
                    "bad value \"{}\" for {} ({}): expected a number 0..={}",
                    short(config),
                    ty.name,
                    ty.meaning,
                    ty.values - 1
                ),
            )
        })?;
    Ok(COUNT_OFFSETS[c] + value)
}

/// The index within a phase of the configuration `config` of pattern type `t`, as its squares'
/// characters or as its index.
fn parse_configuration(t: usize, config: &str) -> Result<usize, (&'static str, String)> {
    let ty = &PATTERN_TYPES[t];
    let count = pow3(ty.len);
    let value = if !config.is_empty() && config.bytes().all(|b| b.is_ascii_digit()) {
        let index: u64 = config.parse().unwrap_or(u64::MAX);
        if index >= count as u64 {
            return Err((
                "config",
                format!(
                    "config index {} out of range: {} has {count} configurations, 0..={}",
                    short(config),
                    ty.name,
                    count - 1
                ),
            ));
        }
        index as usize
    } else {
        let bad = || {
            (
                "config",
                format!(
                    "bad config \"{}\" for {}: expected {} characters, one per square {} in order (x side to move, o opponent, . empty), or an index 0..={}",
                    short(config),
                    ty.name,
                    ty.len,
                    square_names(ty),
                    count - 1
                ),
            )
        };
        if config.chars().count() != ty.len {
            return Err(bad());
        }
        let mut value = 0;
        for c in config.chars().rev() {
            let digit = match c {
                '.' | '-' => 0,
                'x' | 'X' => 1,
                'o' | 'O' => 2,
                _ => return Err(bad()),
            };
            value = value * 3 + digit;
        }
        value
    };
    Ok(OFFSETS[t] + value)
}
