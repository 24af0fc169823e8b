//! Readers for the result tables, shared by the engine test files.
#![allow(dead_code)]

use ccsim_core::output::{Column, Output};

pub fn col<'a>(o: &'a Output, table: &str, name: &str) -> &'a Column {
    let t = o.tables.iter().find(|t| t.name == table).expect("table");
    &t.columns.iter().find(|c| c.0 == name).expect("column").1
}

/// A numeric column as f64 values.
pub fn f64s(c: &Column) -> Vec<f64> {
    match c {
        Column::F64(v) => v.clone(),
        Column::I64(v) => v.iter().map(|&x| x as f64).collect(),
        Column::Str(_) => panic!("string column"),
    }
}

/// One value of the queues table, by queue name (`"R1->R2"`) and column.
pub fn queue_value(o: &Output, queue: &str, name: &str) -> f64 {
    let names = match col(o, "queues", "queue") {
        Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    let i = names.iter().position(|n| n == queue).expect("queue");
    f64s(col(o, "queues", name))[i]
}

/// A numeric column of the flows table, one value per flow.
pub fn flow_values(o: &Output, name: &str) -> Vec<f64> {
    f64s(col(o, "flows", name))
}
