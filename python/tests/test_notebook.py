"""The tour notebook runs top to bottom, and shows its charts and the diagram as SVG."""

import nbclient
import nbformat

from conftest import ROOT


def test_the_tour_runs_top_to_bottom():
    path = ROOT / "python" / "examples" / "tour.ipynb"
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    svgs = [o for o in outputs if "image/svg+xml" in o.get("data", {})]
    assert len(svgs) == 3, "the roofline, the occupancy curves and the diagram"
    text = "".join(o.get("text", "") for o in outputs)
    assert "holds int64 values" in text and "partial_sums" in text
    assert "sm_90 H100" in text
