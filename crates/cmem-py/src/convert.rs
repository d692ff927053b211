//! Values between Python and the engine's serde forms: what the engine returns as JSON
//! (reports, entries, a match's parts) becomes dicts and lists, and the records of
//! `import_records` become JSON Lines.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde_json::{Map, Number, Value};

use crate::errors::InvalidInputError;

/// A JSON value as Python objects: objects → dict, arrays → list, numbers → int or
/// float, null → None.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)
            }
        }
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// A serializable engine value as Python objects.
pub(crate) fn serde_to_py<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value)
        .map_err(|e| crate::errors::Error::new_err(format!("cannot convert a result: {e}")))?;
    to_py(py, &json)
}

/// A Python value as JSON: dict (str keys), list or tuple, str, int, float, bool,
/// None. `at` names the value in the error (`records[3]["target"]`).
pub(crate) fn from_py(obj: &Bound<'_, PyAny>, at: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(InvalidInputError::new_err(format!("{at}: the integer {obj} is out of range")));
    }
    if obj.is_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        return Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| InvalidInputError::new_err(format!("{at}: {f} is not a finite number")));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.extract::<String>()?));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err(format!("{at}: a key is {}, not str", type_name(&k))))?;
            let value = from_py(&v, &format!("{at}[{key:?}]"))?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            items.push(from_py(&item?, &format!("{at}[{i}]"))?);
        }
        return Ok(Value::Array(items));
    }
    Err(PyTypeError::new_err(format!(
        "{at}: a {} cannot be stored; give str, int, float, bool, None, list or dict",
        type_name(obj)
    )))
}

/// The type name of `obj`, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "object".to_owned(), |n| n.to_string())
}
