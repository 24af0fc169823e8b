//! Result tables: named columns of one type each, as every model reports its
//! results and as Python receives them (one DataFrame each, built when first
//! read), and their Parquet files ([`parquet`]).

/// One column of a result table.
#[derive(Debug, Clone)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Str(Vec<String>),
    /// Categorical: codes into a list of labels.
    Cat(Vec<u32>, Vec<String>),
}

impl Column {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat(codes, _) => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named result table: columns of equal length, in order.
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

pub mod parquet;
