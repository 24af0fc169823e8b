//! Result tables: named columns of one type each, as every model reports its
//! results and as Python receives them (one DataFrame or Arrow table each).

/// One column of a result table.
#[derive(Debug, Clone)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Vec<String>),
    /// Categorical: codes into a list of labels.
    Cat(Vec<u32>, Vec<String>),
}

/// A named result table: columns of equal length, in order.
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}
