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
