"""What a training run leaves behind besides the checkpoint: CSV curves, a plot, a table.

The CSV files are the plain record (one row per update, one per evaluated
opponent); TensorBoard gets the same numbers. A resumed run first drops rows
written after the checkpoint it resumes from, so no update is counted twice.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any


class CsvLog:
    """Append-only rows with a fixed header (taken from the first row written)."""

    def __init__(self, path: Path, keep_through_update: int | None = None) -> None:
        self.path = path
        self.fields: list[str] | None = None
        if keep_through_update is None or not path.exists():
            path.unlink(missing_ok=True)
            return
        with path.open(newline="") as handle:
            rows = [r for r in csv.DictReader(handle) if int(r["update"]) <= keep_through_update]
        path.unlink()
        for row in rows:
            self.write(row)

    def write(self, row: dict[str, Any]) -> None:
        new = self.fields is None
        if new:
            self.fields = list(row)
        with self.path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.fields)
            if new:
                writer.writeheader()
            writer.writerow(row)


def read_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def last_evaluation(eval_csv: Path) -> list[dict[str, Any]]:
    """The rows of the latest evaluation in the CSV, numbers as numbers."""
    rows = read_rows(eval_csv)
    last = max((int(r["update"]) for r in rows), default=None)
    return [{k: v if k == "opponent" else float(v) for k, v in r.items()} for r in rows if int(r["update"]) == last]


def plot_curves(eval_csv: Path, png: Path, title: str, even: float) -> None:
    """Score a round, then win rate, against learner steps, one line per baseline with its 95% interval as a
    band: the rules' measure above, since a learner can win rounds and still lose on points.

    ``even`` (1 / players) marks the win rate of an agent exactly as strong as the baseline.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_rows(eval_csv)
    fig, (score_ax, win_ax) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        steps = [int(r["global_step"]) for r in mine]
        for ax, value, band in ((score_ax, "score", "score"), (win_ax, "win_rate", "win")):
            ax.plot(steps, [float(r[value]) for r in mine], marker="o", label=f"vs {opponent}")
            ax.fill_between(steps, [float(r[f"{band}_low"]) for r in mine], [float(r[f"{band}_high"]) for r in mine],
                            alpha=0.2)
    score_ax.set_ylabel("learner's score a round (95% CI)")
    score_ax.set_title(title)
    score_ax.legend()
    win_ax.axhline(even, color="grey", linewidth=0.8, linestyle="--", label="as strong as the baseline")
    win_ax.set_xlabel("learner steps")
    win_ax.set_ylabel("rounds won (duplicate deals, 95% CI)")
    win_ax.set_ylim(0, 1)
    win_ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)


def format_table(results: list[dict[str, Any]]) -> str:
    """The final evaluation as a fixed-width table, the rules' measure (mean score per round) first."""
    lines = [f"{'opponent':<12} {'rounds':>6} {'score/round':>11} {'95% CI':>17} {'win rate':>8} {'95% CI':>15}"]
    for r in results:
        win_ci = f"[{r['win_low']:.3f}, {r['win_high']:.3f}]"
        score_ci = f"[{r['score_low']:+.2f}, {r['score_high']:+.2f}]"
        lines.append(f"{r['opponent']:<12} {int(r['games']):>6} {r['score']:>+11.2f} {score_ci:>17} "
                     f"{r['win_rate']:>8.3f} {win_ci:>15}")
    return "\n".join(lines)
