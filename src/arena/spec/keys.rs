//! The checks every spec section repeats, written once: an integer or a float within its
//! range, a choice among names, a duration, a folder beside the spec, a key that does not
//! belong, an engine's name. Each helper takes the message of its key (or builds it from the
//! value as written), so that the texts stay each key's own; tuning specs use them too.

use std::ops::RangeInclusive;
use std::time::Duration;

use super::*;

/// Checks an engine's name: non-empty, short, without commas or control characters.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.chars().any(|c| c.is_control() || c == ',')
        || name.chars().count() > MAX_NAME_CHARS
    {
        return Err(format!(
            "an engine name must be non-empty, at most {MAX_NAME_CHARS} characters, without commas or control characters"
        ));
    }
    Ok(())
}

impl Locator<'_> {
    /// An integer key within `range`, as a `T`; else the error `message(value)` at the value.
    pub(crate) fn int_in<T: TryFrom<i64>>(
        &self,
        v: &Spanned<i64>,
        key: &str,
        range: RangeInclusive<i64>,
        message: impl FnOnce(i64) -> String,
    ) -> Result<T, SpecError> {
        let x = *v.get_ref();
        match T::try_from(x) {
            Ok(t) if range.contains(&x) => Ok(t),
            _ => Err(self.on(v, key, message(x))),
        }
    }

    /// An optional integer key within `range` ([`Locator::int_in`]); `default` when absent.
    pub(crate) fn int_or<T: TryFrom<i64>>(
        &self,
        v: Option<&Spanned<i64>>,
        default: T,
        key: &str,
        range: RangeInclusive<i64>,
        message: impl FnOnce(i64) -> String,
    ) -> Result<T, SpecError> {
        match v {
            None => Ok(default),
            Some(v) => self.int_in(v, key, range, message),
        }
    }

    /// A float key that `ok` accepts; else the error `message(value as written)` (`1e308`, not
    /// its 309 digits).
    pub(crate) fn float_if(
        &self,
        v: &Spanned<f64>,
        key: &str,
        ok: impl FnOnce(f64) -> bool,
        message: impl FnOnce(&str) -> String,
    ) -> Result<f64, SpecError> {
        let x = *v.get_ref();
        if ok(x) {
            Ok(x)
        } else {
            Err(self.on(v, key, message(self.written(v))))
        }
    }

    /// A float key within `range`, bounds included (NaN never is); else
    /// `message(value as written)`.
    pub(crate) fn float_in(
        &self,
        v: &Spanned<f64>,
        key: &str,
        range: RangeInclusive<f64>,
        message: impl FnOnce(&str) -> String,
    ) -> Result<f64, SpecError> {
        self.float_if(v, key, |x| range.contains(&x), message)
    }

    /// A choice among `choices` (`(name, value)`; several names may give one value), the
    /// text matched exactly as written; else the error `message(text)`.
    pub(crate) fn choice<T: Copy>(
        &self,
        v: &Spanned<String>,
        key: &str,
        choices: &[(&str, T)],
        message: impl FnOnce(&str) -> String,
    ) -> Result<T, SpecError> {
        pick(v.get_ref(), choices).ok_or_else(|| self.on(v, key, message(v.get_ref())))
    }

    /// [`Locator::choice`], with the text trimmed of white space first (the message gets the
    /// trimmed text).
    pub(crate) fn choice_trimmed<T: Copy>(
        &self,
        v: &Spanned<String>,
        key: &str,
        choices: &[(&str, T)],
        message: impl FnOnce(&str) -> String,
    ) -> Result<T, SpecError> {
        let text = v.get_ref().trim();
        pick(text, choices).ok_or_else(|| self.on(v, key, message(text)))
    }

    /// A duration key with its unit (`"200ms"`, `"0.5s"`; [`parse_time`]). A duration out of
    /// range is refused with `context` before the reason; one without a unit with
    /// `no_unit(text as written)`.
    pub(crate) fn duration(
        &self,
        v: &Spanned<String>,
        key: &str,
        context: &str,
        no_unit: impl FnOnce(&str) -> String,
    ) -> Result<Duration, SpecError> {
        match parse_time(v.get_ref().trim()) {
            Some(Ok(d)) => Ok(d),
            Some(Err(reason)) => Err(self.on(v, key, format!("{context}{reason}"))),
            None => Err(self.on(v, key, no_unit(v.get_ref()))),
        }
    }

    /// A folder key, relative to the spec's folder ([`Locator::path`]): the folder as the
    /// process opens it; else, when there is no folder there, `message(that path)`.
    pub(crate) fn folder(
        &self,
        v: &Spanned<String>,
        key: &str,
        message: impl FnOnce(&Path) -> String,
    ) -> Result<PathBuf, SpecError> {
        let dir = self.path(v.get_ref());
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(self.on(v, key, message(&dir)))
        }
    }

    /// Refuses a key that does not belong where it is written: the error `message` at it when
    /// it is given.
    pub(crate) fn absent<T>(
        &self,
        v: Option<&Spanned<T>>,
        key: &str,
        message: impl FnOnce() -> String,
    ) -> Result<(), SpecError> {
        match v {
            Some(v) => Err(self.on(v, key, message())),
            None => Ok(()),
        }
    }

    /// An engine's name ([`check_name`]), trimmed.
    pub(crate) fn engine_name(&self, v: &Spanned<String>, key: &str) -> Result<String, SpecError> {
        let name = v.get_ref().trim();
        check_name(name).map_err(|m| self.on(v, key, m))?;
        Ok(name.to_string())
    }
}

/// The value of `text` among `choices`.
fn pick<T: Copy>(text: &str, choices: &[(&str, T)]) -> Option<T> {
    choices.iter().find(|(n, _)| *n == text).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec of one key `k`, its value spanned, and a locator over it.
    fn spanned<T: serde::de::DeserializeOwned>(text: &str) -> Spanned<T> {
        #[derive(Deserialize)]
        struct One<T> {
            k: Spanned<T>,
        }
        toml::from_str::<One<T>>(text).unwrap().k
    }

    fn loc(text: &str) -> Locator<'_> {
        Locator {
            file: "s.toml",
            text,
            base: None,
        }
    }

    #[test]
    fn int_in_takes_the_range_and_converts() {
        let text = "k = 7";
        let v = spanned::<i64>(text);
        let x: u32 = loc(text)
            .int_in(&v, "k", 1..=7, |x| format!("{x}"))
            .unwrap();
        assert_eq!(x, 7);
        let e = loc(text)
            .int_in::<u32>(&v, "k", 1..=6, |x| format!("k is {x}; allowed: 1..=6"))
            .unwrap_err();
        assert_eq!(e.to_string(), "s.toml:1:5: key 'k': k is 7; allowed: 1..=6");
    }

    #[test]
    fn int_in_refuses_what_the_type_cannot_hold() {
        let text = "k = -1";
        let v = spanned::<i64>(text);
        let e = loc(text)
            .int_in::<u32>(&v, "k", -5..=5, |x| format!("bad {x}"))
            .unwrap_err();
        assert_eq!(e.message, "bad -1");
    }

    #[test]
    fn int_or_gives_the_default_when_absent() {
        let l = loc("");
        assert_eq!(l.int_or(None, 9u8, "k", 0..=1, |_| String::new()), Ok(9));
    }

    #[test]
    fn float_checks_echo_the_value_as_written() {
        let text = "k = 1e308";
        let v = spanned::<f64>(text);
        let e = loc(text)
            .float_in(&v, "k", 0.0..=1.0, |w| format!("k is {w}"))
            .unwrap_err();
        assert_eq!(e.message, "k is 1e308");
        let text = "k = nan";
        let v = spanned::<f64>(text);
        assert!(
            loc(text)
                .float_in(&v, "k", 0.0..=1.0, |w| w.into())
                .is_err()
        );
        let text = "k = 0.5";
        let v = spanned::<f64>(text);
        assert_eq!(
            loc(text).float_in(&v, "k", 0.0..=1.0, |w| w.into()),
            Ok(0.5)
        );
        assert!(
            loc(text)
                .float_if(&v, "k", |x| x > 0.5, |w| w.into())
                .is_err()
        );
    }

    #[test]
    fn choice_matches_as_written_or_trimmed() {
        let choices = [("a", 1), ("alias", 1), ("b", 2)];
        let text = "k = \" b\"";
        let v = spanned::<String>(text);
        let e = loc(text)
            .choice(&v, "k", &choices, |o| format!("unknown '{o}'"))
            .unwrap_err();
        assert_eq!(e.message, "unknown ' b'");
        assert_eq!(
            loc(text).choice_trimmed(&v, "k", &choices, |o| o.into()),
            Ok(2)
        );
        let text = "k = \"alias\"";
        let v = spanned::<String>(text);
        assert_eq!(loc(text).choice(&v, "k", &choices, |o| o.into()), Ok(1));
        let text = "k = \" c \"";
        let v = spanned::<String>(text);
        let e = loc(text)
            .choice_trimmed(&v, "k", &choices, |o| format!("unknown '{o}'"))
            .unwrap_err();
        assert_eq!(e.message, "unknown 'c'");
    }

    #[test]
    fn duration_needs_a_unit_and_a_range() {
        let text = "k = \"250ms\"";
        let v = spanned::<String>(text);
        let d = loc(text).duration(&v, "k", "ctx: ", |t| t.into());
        assert_eq!(d, Ok(Duration::from_millis(250)));
        let text = "k = \"5\"";
        let v = spanned::<String>(text);
        let e = loc(text)
            .duration(&v, "k", "ctx: ", |t| format!("'{t}' needs a unit"))
            .unwrap_err();
        assert_eq!(e.message, "'5' needs a unit");
        let text = "k = \"-5s\"";
        let v = spanned::<String>(text);
        let reason = match parse_time("-5s") {
            Some(Err(reason)) => reason,
            other => panic!("{other:?}"),
        };
        let e = loc(text)
            .duration(&v, "k", "ctx: ", |t| t.into())
            .unwrap_err();
        assert_eq!(e.message, format!("ctx: {reason}"));
    }

    #[test]
    fn folder_is_beside_the_spec() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let text = "k = \"sub\"";
        let v = spanned::<String>(text);
        let l = Locator {
            file: "s.toml",
            text,
            base: Some(dir.path()),
        };
        assert_eq!(
            l.folder(&v, "k", |_| String::new()),
            Ok(dir.path().join("sub"))
        );
        let text = "k = \"none\"";
        let v = spanned::<String>(text);
        let l = Locator {
            file: "s.toml",
            text,
            base: Some(dir.path()),
        };
        let e = l
            .folder(&v, "k", |p| format!("no folder at {}", p.display()))
            .unwrap_err();
        assert_eq!(
            e.message,
            format!("no folder at {}", dir.path().join("none").display())
        );
    }

    #[test]
    fn absent_refuses_a_given_key() {
        let text = "k = 1";
        let v = spanned::<i64>(text);
        let l = loc(text);
        assert_eq!(l.absent::<i64>(None, "k", || "no".into()), Ok(()));
        let e = l.absent(Some(&v), "k", || "no".into()).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.message.as_str(), e.column),
            ("k", "no", 5)
        );
    }

    #[test]
    fn engine_names_are_trimmed_and_checked() {
        let text = "k = \" ab \"";
        let v = spanned::<String>(text);
        assert_eq!(loc(text).engine_name(&v, "k"), Ok("ab".to_string()));
        let text = "k = \"a,b\"";
        let v = spanned::<String>(text);
        let e = loc(text).engine_name(&v, "k").unwrap_err();
        assert!(
            e.message.starts_with("an engine name must be non-empty"),
            "{e}"
        );
    }
}
