//! The `[sprt]` table: bounds, error rates and model, checked.

use super::*;
use crate::outputs::number_text;

/// Validates an `[sprt]` table; `prefix` is its key path in errors.
pub(crate) fn resolve_sprt(
    s: &Spanned<RawSprt>,
    prefix: &str,
    loc: &Locator<'_>,
) -> Result<Sprt, SpecError> {
    let r = s.get_ref();
    let finite = |v: &Spanned<f64>, key: &str| {
        loc.float_if(v, key, f64::is_finite, |_| "must be a finite number".into())
    };
    let elo0 = finite(&r.elo0, &format!("{prefix}.elo0"))?;
    let elo1 = finite(&r.elo1, &format!("{prefix}.elo1"))?;
    if elo0.abs() > 1000.0 || elo1.abs() > 1000.0 {
        return Err(loc.on(
            &r.elo1,
            &format!("{prefix}.elo1"),
            format!(
                "SPRT bounds [{}, {}] are out of range; allowed: -1000..=1000 Elo",
                loc.written(&r.elo0),
                loc.written(&r.elo1)
            ),
        ));
    }
    if elo0 >= elo1 {
        return Err(loc.on(
            &r.elo1,
            &format!("{prefix}.elo1"),
            format!(
                "elo1 ({}) must be greater than elo0 ({})",
                loc.written(&r.elo1),
                loc.written(&r.elo0)
            ),
        ));
    }
    let rate = |v: &Option<Spanned<f64>>, key: &str| match v {
        None => Ok(0.05),
        Some(v) => loc.float_if(
            v,
            key,
            |x| x > 0.0 && x < 0.5,
            |w| format!("{w} is out of range; allowed: between 0 and 0.5 (e.g. 0.05)"),
        ),
    };
    let alpha = rate(&r.alpha, &format!("{prefix}.alpha"))?;
    let beta = rate(&r.beta, &format!("{prefix}.beta"))?;
    let model = r
        .model
        .as_ref()
        .map(|m| {
            loc.choice(
                m,
                &format!("{prefix}.model"),
                &[
                    ("logistic", EloModel::Logistic),
                    ("normalized", EloModel::Normalized),
                    ("normalised", EloModel::Normalized),
                ],
                |other| format!("unknown model '{other}'; allowed: logistic, normalized"),
            )
        })
        .transpose()?
        .unwrap_or(EloModel::Logistic);
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
        model,
    })
}

/// SPRT bounds must be scores strictly inside (0, 1) with room to spare.
pub(super) fn check_sprt_bounds(elo0: f64, elo1: f64) -> Result<(), String> {
    if elo0.abs() > 1000.0 || elo1.abs() > 1000.0 {
        return Err(format!(
            "SPRT bounds [{}, {}] are out of range; allowed: -1000..=1000 Elo",
            number_text(elo0),
            number_text(elo1)
        ));
    }
    if elo0 >= elo1 {
        return Err(format!(
            "elo1 ({}) must be greater than elo0 ({})",
            number_text(elo1),
            number_text(elo0)
        ));
    }
    Ok(())
}
