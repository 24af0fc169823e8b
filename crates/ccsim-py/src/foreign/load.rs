//! Reading a `kind = "python"` table through `ccsim.extend._load`.

use super::*;

/// The class, its parameters and what the engine must know of it, as
/// `ccsim.extend._load` returned them.
pub(super) struct Loaded {
    pub(super) cls: Py<PyAny>,
    pub(super) params: Py<PyDict>,
    /// `module:Class` as written.
    pub(super) path: String,
    /// The class's `__qualname__` (the `cc` column).
    pub(super) name: &'static str,
    pub(super) hooks: Vec<(String, bool)>,
    pub(super) flags: Py<PyDict>,
}

impl Loaded {
    pub(super) fn hook(&self, h: &str) -> bool {
        self.hooks.iter().any(|(n, on)| n == h && *on)
    }
}

pub(super) fn to_json(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = py.import("json")?.call_method1("dumps", (v,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))
}

pub(super) fn from_json<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// Reads the table: `class` and every other key (the constructor's), through
/// `ccsim.extend._load`; writes back the parameters with their defaults and
/// the source digest.
pub(super) fn load(t: &mut Tab, kind: &str) -> Res<Loaded> {
    let Some(path) = t.string("class")? else {
        return Err(t.missing("class", "\"module:Class\" (the class to load)"));
    };
    let later = if kind == "queue" {
        ccsim_core::qdisc::foreign::LATER
    } else {
        &[]
    };
    let mut given = t.rest(later);
    // (`source` is what a resolved table says of the class's code: always
    // recomputed, never a parameter)
    given.remove("source");
    let class_value = Value::from(path.clone());
    let got = Python::with_gil(|py| -> PyResult<Result<(Loaded, Value, String), ScenarioError>> {
        let ext = py.import("ccsim.extend")?;
        let r = ext.call_method1("_load", (kind, &path, from_json(py, &Value::Object(given))?));
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                let load_error = ext.getattr("ParameterError")?;
                if e.is_instance(py, &load_error) {
                    let v = e.value(py);
                    let key: String = v.getattr("key")?.extract()?;
                    let value = to_json(py, &v.getattr("value")?).unwrap_or(Value::Null);
                    let expected: String = v.getattr("expected")?.extract()?;
                    return Ok(Err(ScenarioError {
                        path: t.key_path(&key),
                        value: ccsim_core::cfg::show(&value),
                        expected,
                    }));
                }
                return Ok(Err(t.error(
                    "class",
                    &class_value,
                    format!("a class ccsim can load ({})", e.value(py)),
                )));
            }
        };
        let (cls, params, digest, flags): (Bound<PyAny>, Bound<PyDict>, String, Bound<PyDict>) = r.extract()?;
        let hooks: Vec<(String, bool)> = flags
            .get_item("hooks")?
            .map(|h| {
                h.extract::<std::collections::BTreeMap<String, bool>>()
                    .map(|m| m.into_iter().collect())
            })
            .transpose()?
            .unwrap_or_default();
        let name: String = cls.getattr("__qualname__")?.extract()?;
        let resolved = to_json(py, params.as_any())?;
        Ok(Ok((
            Loaded {
                cls: cls.unbind(),
                params: params.unbind(),
                path: path.clone(),
                name: intern(&name),
                hooks,
                flags: flags.unbind(),
            },
            resolved,
            digest,
        )))
    });
    let (loaded, resolved, digest) = match got {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(e),
        Err(e) => {
            let msg = Python::with_gil(|py| e.value(py).to_string());
            return Err(t.error("class", &class_value, format!("a class ccsim can load ({msg})")));
        }
    };
    if let Value::Object(m) = resolved {
        for (k, v) in m {
            t.put(&k, v);
        }
    }
    t.put("source", Value::from(digest));
    USED.with(|u| u.set(true));
    Ok(loaded)
}

pub(super) fn flag(py: Python<'_>, flags: &Py<PyDict>, name: &str) -> bool {
    flags
        .bind(py)
        .get_item(name)
        .ok()
        .flatten()
        .and_then(|v| v.extract::<bool>().ok())
        .unwrap_or(false)
}

/// Builds an instance; a constructor that raises now (it did not when the
/// table was read) stops the run.
pub(super) fn instance(py: Python<'_>, l: &Loaded, now: Time, link: Option<&str>) -> Py<PyAny> {
    match l.cls.bind(py).call((), Some(l.params.bind(py))) {
        Ok(o) => o.unbind(),
        Err(e) => fail(e, "__init__", None, link, now),
    }
}

pub(super) fn method(py: Python<'_>, obj: &Py<PyAny>, l: &Loaded, hook: &str) -> Option<Py<PyAny>> {
    if !l.hook(hook) {
        return None;
    }
    obj.bind(py).getattr(hook).ok().map(Bound::unbind)
}
