"""The notebook in docs/ runs from top to bottom (a sweep, the store, plots)."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).parent.parent / "docs" / "notebook.ipynb"


def test_docs_notebook_executes(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("ccsim results store" in h for h in html) and any("ccsim results" in h for h in html)
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2  # the figures
