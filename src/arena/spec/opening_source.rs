//! A spec's openings: generated from the seed or read from a file, every round its own.

use super::*;

/// The opening source as requested, before it is generated or read.
pub(super) enum OpeningRequest {
    Random {
        plies: u32,
        count: u32,
        balance: Balance,
        span: usize,
    },
    File {
        path: String,
        count: Option<u64>,
        order: FileOrder,
        start: u32,
        span: usize,
    },
}

/// The plies of random openings (`key`: `openings.plies`, or a tuning spec's `confirm.plies`).
pub(crate) fn opening_plies(
    p: &Spanned<i64>,
    key: &str,
    loc: &Locator<'_>,
) -> Result<u32, SpecError> {
    loc.int_in(p, key, 0..=200, |v| {
        format!("plies is {v}; allowed: 0..=200")
    })
}

/// The filter of random openings: the game's default, its `balance_depth` and
/// `max_imbalance` as the spec sets them (tournament and tuning specs alike).
pub(crate) fn opening_balance(
    kind: GameKind,
    depth: Option<&Spanned<i64>>,
    max_imbalance: Option<&Spanned<f64>>,
    loc: &Locator<'_>,
) -> Result<Balance, SpecError> {
    let mut balance = Balance::default_for(kind);
    if let Some(d) = depth {
        balance.depth = loc.int_in(d, "openings.balance_depth", 0..=8, |v| {
            format!("balance_depth is {v}; allowed: 0..=8 (0 turns the check off)")
        })?;
    }
    if let Some(m) = max_imbalance {
        let v = loc.float_if(
            m,
            "openings.max_imbalance",
            |v| !(v.is_nan() || v <= 0.0),
            |w| {
                format!(
                    "max_imbalance is {w}; it must be a positive number (in weight units) or inf"
                )
            },
        )?;
        balance.max_imbalance = v.is_finite().then_some(v);
    }
    Ok(balance)
}

/// The openings each round of a tournament uses, from `openings.count` or the top-level
/// `games` (`games`: its value and the count it gives), which must agree.
pub(super) fn opening_count(
    raw: &RawSpec,
    games: Option<(&Spanned<i64>, u64)>,
    rounds: u32,
    loc: &Locator<'_>,
) -> Result<Option<u64>, SpecError> {
    let count = raw
        .openings
        .get_ref()
        .count
        .as_ref()
        .map(|c| {
            loc.int_in(c, "openings.count", 1..=MAX_OPENINGS as i64, |v| {
                format!("count is {v}; allowed: 1..={MAX_OPENINGS}")
            })
        })
        .transpose()?;
    match (count, games) {
        (Some(c), Some((g, from_games))) if c != from_games => Err(loc.on(
            g,
            "games",
            format!(
                "games = {} does not match openings.count = {c} × 2 colours × {rounds} round(s) = {}; give one of them",
                g.get_ref(),
                c * 2 * rounds as u64
            ),
        )),
        (Some(c), _) => Ok(Some(c)),
        (None, Some((_, from_games))) => Ok(Some(from_games)),
        (None, None) => Ok(None),
    }
}

/// A tournament's `openings` table: random openings or a file, `count` of them per round
/// (`None`: not given); `pairings` counts the schedule's pairings, for the run's size.
pub(super) fn opening_request(
    raw: &RawSpec,
    kind: GameKind,
    count: Option<u64>,
    rounds: u32,
    pairings: impl FnOnce() -> u64,
    loc: &Locator<'_>,
) -> Result<OpeningRequest, SpecError> {
    let o = raw.openings.get_ref();
    match (&o.file, &o.plies) {
        (Some(_), Some(p)) => Err(loc.on(
            p,
            "openings.plies",
            "give either plies (random openings) or file, not both",
        )),
        (Some(f), None) => file_request(o, f, count, loc),
        (None, Some(p)) => {
            let only_file = "applies to an openings file only; random openings are drawn from the seed";
            loc.absent(o.order.as_ref(), "openings.order", || only_file.into())?;
            loc.absent(o.start.as_ref(), "openings.start", || only_file.into())?;
            let plies = opening_plies(p, "openings.plies", loc)?;
            let Some(count) = count else {
                return Err(loc.on(
                    &raw.openings,
                    "openings.count",
                    "say how many openings: openings = { plies = 6, count = 50 }, or games = N at the top level",
                ));
            };
            let balance = opening_balance(
                kind,
                o.balance_depth.as_ref(),
                o.max_imbalance.as_ref(),
                loc,
            )?;
            // The size of the run, before any opening is generated.
            let pairings = pairings();
            let openings = count * rounds as u64;
            if openings > MAX_OPENINGS || pairings * openings * 2 > MAX_GAMES {
                return Err(loc.on(
                    &raw.openings,
                    "openings",
                    format!(
                        "{openings} openings ({count} × {rounds} round(s)) for {pairings} pairing(s) make {} games; at most {MAX_OPENINGS} openings and {MAX_GAMES} games",
                        pairings * openings * 2
                    ),
                ));
            }
            Ok(OpeningRequest::Random {
                plies,
                count: count as u32,
                balance,
                span: raw.openings.span().start,
            })
        }
        (None, None) => Err(loc.on(
            &raw.openings,
            "openings",
            "say where the openings come from: { plies = 6, count = 50 } or { file = \"openings.txt\" }",
        )),
    }
}

/// An openings file's request: its `order` and `start` (the random openings' keys refused).
fn file_request(
    o: &RawOpenings,
    f: &Spanned<String>,
    count: Option<u64>,
    loc: &Locator<'_>,
) -> Result<OpeningRequest, SpecError> {
    let only_random = "applies to random openings only; an openings file is used as it is";
    loc.absent(o.balance_depth.as_ref(), "openings.balance_depth", || {
        only_random.into()
    })?;
    loc.absent(o.max_imbalance.as_ref(), "openings.max_imbalance", || {
        only_random.into()
    })?;
    let order = o
        .order
        .as_ref()
        .map(|v| {
            loc.choice(
                v,
                "openings.order",
                &[
                    ("sequential", FileOrder::Sequential),
                    ("random", FileOrder::Random),
                ],
                |other| format!("order is '{other}'; allowed: \"sequential\", \"random\""),
            )
        })
        .transpose()?
        .unwrap_or(FileOrder::Sequential);
    let start = loc.int_or(
        o.start.as_ref(),
        0,
        "openings.start",
        0..=MAX_OPENINGS as i64,
        |v| format!("start is {v}; allowed: 0..={MAX_OPENINGS} (openings of the file to skip)"),
    )?;
    Ok(OpeningRequest::File {
        path: f.get_ref().clone(),
        count,
        order,
        start,
        span: f.span().start,
    })
}

/// The indices `0..n` shuffled (Fisher–Yates) by a splitmix64 sequence drawn from `seed`.
pub(super) fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed ^ 0x6669_6c65_6f72_6465;
    for i in (1..n).rev() {
        state = crate::games::hash::mix64(state);
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// Generates or reads the openings: `count` per round, every round its own.
pub(super) fn resolve_openings<G: Features>(
    start: &G,
    request: &OpeningRequest,
    seed: u64,
    rounds: u32,
    loc: &Locator<'_>,
) -> Result<(OpeningSource, Vec<String>), SpecError> {
    match request {
        OpeningRequest::Random {
            plies,
            count,
            balance,
            span,
        } => {
            let wanted = count
                .checked_mul(rounds)
                .ok_or_else(|| loc.at(*span, "openings", "count × rounds is too large"))?;
            let list = openings::random_openings(*start, *plies, wanted, seed, balance)
                .map_err(|e| loc.at(*span, "openings", e))?;
            Ok((
                OpeningSource::Random {
                    plies: *plies,
                    count: *count,
                    balance: balance.clone(),
                    distinct: None,
                },
                openings::notation(start, &list),
            ))
        }
        OpeningRequest::File {
            path,
            count,
            order,
            start: skip,
            span,
        } => {
            let list = openings::read_openings_file(*start, &loc.path(path))
                .map_err(|e| loc.at(*span, "openings.file", e))?;
            if *skip as usize >= list.len() {
                return Err(loc.at(
                    *span,
                    "openings.start",
                    format!(
                        "start is {skip}, but {path} holds {} openings: nothing is left to play",
                        list.len()
                    ),
                ));
            }
            let mut list = list[*skip as usize..].to_vec();
            if *order == FileOrder::Random {
                let order = shuffled(list.len(), seed);
                list = order.iter().map(|&i| list[i].clone()).collect();
            }
            let available = list.len() as u64;
            let used = count.unwrap_or(available / rounds as u64);
            if used == 0 || used * rounds as u64 > available {
                return Err(loc.at(
                    *span,
                    "openings.file",
                    format!(
                        "{path} holds {available} openings{}, fewer than the {} asked for ({} per round × {rounds} round(s); every round plays openings of its own)",
                        if *skip > 0 { format!(" after start = {skip}") } else { String::new() },
                        used.max(1) * rounds as u64,
                        used.max(1)
                    ),
                ));
            }
            let list = &list[..(used * rounds as u64) as usize];
            Ok((
                OpeningSource::File {
                    path: path.clone(),
                    count: used as u32,
                    order: *order,
                    start: *skip,
                },
                openings::notation(start, list),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Keys {
        balance_depth: Option<Spanned<i64>>,
        max_imbalance: Option<Spanned<f64>>,
    }

    fn balance(text: &str) -> Result<Balance, SpecError> {
        let keys: Keys = toml::from_str(text).unwrap();
        let loc = Locator {
            file: "s.toml",
            text,
            base: None,
        };
        opening_balance(
            GameKind::Othello,
            keys.balance_depth.as_ref(),
            keys.max_imbalance.as_ref(),
            &loc,
        )
    }

    #[test]
    fn balance_starts_from_the_games_default() {
        assert_eq!(
            balance("").unwrap(),
            Balance::default_for(GameKind::Othello)
        );
        let b = balance("balance_depth = 0\nmax_imbalance = inf").unwrap();
        assert_eq!((b.depth, b.max_imbalance), (0, None));
        let b = balance("max_imbalance = 12.5").unwrap();
        assert_eq!(b.max_imbalance, Some(12.5));
        assert_eq!(b.depth, Balance::default_for(GameKind::Othello).depth);
    }

    #[test]
    fn balance_refuses_out_of_range_values_where_they_are_written() {
        let e = balance("balance_depth = 9").unwrap_err();
        assert_eq!((e.line, e.column), (1, 17));
        assert_eq!(e.key, "openings.balance_depth");
        let e = balance("max_imbalance = 0").unwrap_err();
        assert_eq!(e.key, "openings.max_imbalance");
        assert_eq!(
            e.message,
            "max_imbalance is 0; it must be a positive number (in weight units) or inf"
        );
    }
}
