"""The ladder's result as a markdown table and a chart, best first by the margin rating.

The markdown reuses the evaluator's columns (``agents.evaluate.columns``), so the ladder and the evaluator
show the same figures under the same names; the chart needs matplotlib (the dev extra) and is skipped with a
message where it is missing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from agents.evaluate import columns, describe


def ranked(result: dict[str, Any]) -> list[str]:
    """The agents, highest margin rating first."""
    rated = result["rating"]["agents"]
    return sorted(rated, key=lambda label: -rated[label]["margin"])


def markdown(result: dict[str, Any]) -> str:
    """The rating table, what was played and how it is rated, and the whole games head to head."""
    head, rows = columns(result)
    by_label = {cells[0]: cells for cells in rows}
    command = result.get("run", {}).get("command")
    lines = [f"## Ladder: {result['game']}, {result['players']} players", "", f"{describe(result)}.", "",
             *([f"Made by `{command}`.", ""] if command else []),
             f"Rating: {result['rating']['method']}.", "",
             "| rank | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for rank, label in enumerate(ranked(result), 1):
        lines.append(f"| {rank} | " + " | ".join(by_label[label]) + " |")
    pairs = result.get("matches", {}).get("head_to_head")
    if pairs:
        order = ranked(result)
        lines += ["", "Whole games head to head: how often the row finished ahead of the column (the rules' winner, "
                  "then the higher total; ties half).", "", "| | " + " | ".join(order) + " |",
                  "|---" * (len(order) + 1) + "|"]
        for a in order:
            lines.append(f"| {a} | " + " | ".join(f"{pairs[a][b]:.3f}" if b in pairs[a] else "-" for b in order)
                         + " |")
    return "\n".join(lines) + "\n"


def chart(result: dict[str, Any], path: Path) -> str:
    """Draw the margin ratings (and the whole-game win rates, where played) with their intervals to ``path``;
    what was done, in words."""
    if importlib.util.find_spec("matplotlib") is None:
        return "no chart: matplotlib is not installed (it comes with the dev extra: pip install -e '.[dev]')"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = ranked(result)[::-1]  # the best at the top
    rated = result["rating"]["agents"]
    panels = [("margin rating (lead in points per round)", 0.0, [rated[a]["margin"] for a in order],
               [rated[a]["margin_ci"] for a in order])]
    if "matches" in result:
        whole = result["matches"]["agents"]
        panels.append(("whole-game win rate (line: an even share)", 1.0 / result["players"],
                       [whole[a]["win_rate"] for a in order], [whole[a]["win_ci"] for a in order]))
    figure, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 0.5 * len(order) + 1.5), squeeze=False)
    for axis, (title, even, values, intervals) in zip(axes[0], panels, strict=True):
        errors = [[v - lo for v, (lo, _) in zip(values, intervals, strict=True)],
                  [hi - v for v, (_, hi) in zip(values, intervals, strict=True)]]
        axis.barh(order, values, xerr=errors, capsize=3, color="tab:blue")
        axis.set_title(title)
        axis.axvline(even, color="grey", linewidth=0.8)
    figure.suptitle(f"{result['game']}, {result['players']} players: {result['deals']} deals, 95% intervals")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return f"chart: {path}"
