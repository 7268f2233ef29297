"""HTML of the gallery pages: index, one page per task, one page per item.

Plain HTML, one stylesheet and two small scripts of the site's own (the filters of ``items.html``
and the 3-D view of an item page, drawn by the vendored 3Dmol.js): the site opens from disk
(``file://``) and from any static host, offline. Every text taken from the dataset or a predictions
file is escaped. Links are relative (page names URL-quoted: a complex id may hold ``#``, ``%`` or a
space): the index is ``index.html``, the filterable list of every shown item ``items.html``, a task
page ``<task>/index.html``, an item page ``<task>/<split>-<complex>-<index>.html``, images
``img/<hash>-s.jpg`` / ``-m.jpg`` / ``-k.jpg`` (key thumbnail), structures ``structures/<complex>.js``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any
from urllib.parse import quote

from misi_tasks.definitions.registry import default_specs, task_codes

__all__ = [
    "ItemView",
    "Prediction",
    "TaskView",
    "index_page",
    "item_page",
    "item_page_name",
    "items_page",
    "metadata_block",
    "models_table",
    "outcome",
    "report_table",
    "task_blurb",
    "task_page",
]

def task_blurb(task: str) -> str:
    """One line for a task's cards and pages: what is asked and an example answer ("" if unknown)."""
    spec = default_specs().get(task)
    return spec.blurb() if spec is not None else ""


@dataclass
class Prediction:
    """A model's reply to one item and its score (from :func:`misi_tasks.eval.score.score_item`)."""

    reply: str | None
    parsed: str | None
    score: float
    exact: bool
    status: str


def outcome(pred: Prediction) -> str:
    """``correct`` (exact answer), ``wrong`` (parsed, not exact), ``unparseable`` or ``missing``.

    >>> outcome(Prediction("A", "A", 1.0, True, "ok")), outcome(Prediction("x", None, 0.0, False, "unparseable"))
    ('correct', 'unparseable')
    """
    if pred.status == "ok":
        return "correct" if pred.exact else "wrong"
    return pred.status


@dataclass
class ItemView:
    """What an item page needs: the dataset row (without images), its images' JPEG names, its key
    thumbnail, each model's prediction (model name -> :class:`Prediction`) and its structure script."""

    row: Mapping[str, Any]
    small: list[str]
    medium: list[str]
    predictions: dict[str, Prediction] = field(default_factory=dict)
    key: str | None = None
    structure: str | None = None

    @property
    def prediction(self) -> Prediction | None:
        """The first model's prediction (None without predictions)."""
        return next(iter(self.predictions.values()), None)

    @property
    def page(self) -> str:
        return item_page_name(self.row["id"])


@dataclass
class TaskView:
    """One task of the index: its counts per split, shown items and (with predictions) mean score."""

    task: str
    counts: dict[str, int]
    items: list[ItemView] = field(default_factory=list)
    scored: int = 0
    mean_score: float | None = None


def item_page_name(item_id: str) -> str:
    """File name of an item page inside its task folder.

    >>> item_page_name("translation/test/2pyy/003")
    'test-2pyy-003.html'
    """
    parts = item_id.split("/")
    return "-".join(parts[1:]) + ".html" if len(parts) > 1 else parts[0] + ".html"


def _page(title: str, body: str, root: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{escape(title)}</title>\n<link rel=\"icon\" href=\"data:,\">\n"
        f"<link rel=\"stylesheet\" href=\"{root}style.css\">\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _img(src: str, alt: str, cls: str = "", link: str | None = None, caption: str | None = None) -> str:
    tag = f"<img src=\"{escape(src)}\" alt=\"{escape(alt)}\" loading=\"lazy\"{f' class={cls!r}' if cls else ''}>"
    if link:
        tag = f"<a href=\"{escape(link)}\">{tag}</a>"
    if caption is not None:
        tag = f"<figure>{tag}<figcaption>{escape(caption)}</figcaption></figure>"
    return tag


def _score_class(score: float) -> str:
    return "good" if score >= 0.999 else "bad" if score <= 0.001 else "part"


def _badge(pred: Prediction | None) -> str:
    if pred is None:
        return ""
    label = pred.status if pred.status != "ok" else f"{100 * pred.score:.0f}%"
    cls = "bad" if pred.status != "ok" else _score_class(pred.score)
    return f"<span class=\"badge {cls}\">{escape(label)}</span>"


# ---------------------------------------------------------------- index
def index_page(title: str, tasks: Sequence[TaskView], notes: Sequence[str], report_html: str = "") -> str:
    """The site's front page: one card per task with counts, a thumbnail strip and a link."""
    cards = []
    for tv in tasks:
        code = task_codes().get(tv.task, "?")
        counts = " · ".join(f"{split} {n}" for split, n in sorted(tv.counts.items()))
        strip = "".join(_img(f"img/{iv.key or iv.small[0]}", f"{iv.row['id']} key image",
                             link=f"{tv.task}/{quote(iv.page)}") for iv in tv.items[:6] if iv.small)
        score = ""
        if tv.mean_score is not None:
            score = (f"<p class=\"score\">mean score {100 * tv.mean_score:.1f}% over {tv.scored} "
                     f"predicted items</p>")
        cards.append(
            f"<section class=\"card\" id=\"{escape(tv.task)}\">\n"
            f"<h2><a href=\"{escape(tv.task)}/index.html\"><span class=\"code\">{code}</span> "
            f"{escape(tv.task)}</a></h2>\n"
            f"<p class=\"blurb\">{escape(task_blurb(tv.task))}</p>\n"
            f"<p class=\"counts\">{sum(tv.counts.values())} items: {escape(counts)}</p>\n"
            f"<div class=\"strip\">{strip}</div>\n{score}\n"
            f"<p><a href=\"{escape(tv.task)}/index.html\">{len(tv.items)} items shown &rarr;</a></p>\n"
            "</section>"
        )
    note = "".join(f"<p class=\"note\">{escape(n)}</p>" for n in notes)
    note += "<p class=\"note\"><a href=\"items.html\">every shown item, with filters &rarr;</a></p>"
    body = (f"<header><h1>{escape(title)}</h1>{note}</header>\n<main>\n{report_html}"
            f"<div class=\"cards\">\n" + "\n".join(cards) + "\n</div>\n</main>")
    return _page(title, body, "")


def report_table(rows: Sequence[tuple[str, int, float, float]]) -> str:
    """HTML table of (column, items, score %, exact %) rows for the index page, one column per report column."""
    head = "".join(f"<th>{escape(c)}</th>" for c, _, _, _ in rows)
    line = lambda name, cells: f"<tr><th>{name}</th>{cells}</tr>"  # noqa: E731
    body = (line("items", "".join(f"<td>{n}</td>" for _, n, _, _ in rows))
            + line("score %", "".join(f"<td>{s:.1f}</td>" for _, _, s, _ in rows))
            + line("exact %", "".join(f"<td>{e:.1f}</td>" for _, _, _, e in rows)))
    return ("<section class=\"report\"><h2>Scores of the predictions (every predicted item)</h2><table>"
            f"<thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table></section>\n")


def models_table(rows: Sequence[tuple[str, Sequence[tuple[str, int, float, float]]]]) -> str:
    """HTML table of several models' scores: one row per model, one column per report column.

    ``rows`` holds ``(model, [(column, items, score %, exact %), ...])``.
    """
    if len(rows) == 1:
        return report_table(rows[0][1])
    columns = list(dict.fromkeys(c for _, cols in rows for c, _, _, _ in cols))
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = []
    for model, cols in rows:
        score = {c: s for c, _, s, _ in cols}
        body.append(f"<tr><th>{escape(model)}</th>"
                    + "".join(f"<td>{score[c]:.1f}</td>" if c in score else "<td>-</td>" for c in columns) + "</tr>")
    return ("<section class=\"report\"><h2>Scores of the predictions, % (every predicted item)</h2><table>"
            f"<thead><tr><th>model</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></section>\n")


# ---------------------------------------------------------------- every shown item, with filters
def items_page(tasks: Sequence[TaskView], models: Sequence[str], title: str) -> str:
    """One row per shown item (key thumbnail, task, complex, answer, each model's parsed answer and
    outcome) with filters by task, complex and, per model, correct / wrong / unparseable / missing."""
    rows, complexes = [], set()
    for tv in tasks:
        code = task_codes().get(tv.task, "?")
        for iv in tv.items:
            row = iv.row
            complexes.add(row["complex_id"])
            attrs = [f"data-task=\"{escape(tv.task)}\"", f"data-complex=\"{escape(row['complex_id'])}\""]
            cells = []
            for k, model in enumerate(models):
                pred = iv.predictions.get(model)
                if pred is None:
                    continue
                attrs.append(f"data-o{k}=\"{outcome(pred)}\"")
                parsed = "—" if pred.parsed is None else pred.parsed
                reply = "(no prediction)" if pred.reply is None else pred.reply
                cells.append(f"<td class=\"o-{outcome(pred)}\" title=\"{escape(reply[:300])}\">"
                             f"<code>{escape(parsed)}</code> {_badge(pred)}</td>")
            thumb = _img(f"img/{iv.key or iv.small[0]}", f"{row['id']} key image") if iv.small else ""
            link = escape(f"{tv.task}/{quote(iv.page)}")
            rows.append(f"<tr {' '.join(attrs)}><td><a href=\"{link}\">{thumb}</a></td>"
                        f"<td><span class=\"code\">{code}</span> {escape(tv.task)}</td>"
                        f"<td>{escape(row['complex_id'])}</td><td><a href=\"{link}\">"
                        f"{escape(row['id'])}</a></td><td><code>{escape(row['answer'])}</code></td>{''.join(cells)}</tr>")

    def select(ident: str, label: str, options: Sequence[tuple[str, str]]) -> str:
        opts = "".join(f"<option value=\"{escape(v)}\">{escape(t)}</option>" for v, t in options)
        return f"<label>{label} <select id=\"{ident}\">{opts}</select></label>"

    filters = [select("f-task", "task", [("", "all")] + [(tv.task, f"{task_codes().get(tv.task, '?')} {tv.task}")
                                                          for tv in tasks]),
               select("f-complex", "complex", [("", "all")] + [(c, c) for c in sorted(complexes)])]
    if models:
        filters.append(select("f-model", "model", [(str(k), m) for k, m in enumerate(models)]))
        filters.append(select("f-outcome", "outcome", [("", "any"), ("correct", "correct"), ("wrong", "wrong"),
                                                       ("unparseable", "unparseable"), ("missing", "missing")]))
    head = "".join(f"<th>{escape(m)}</th>" for m in models)
    body = (f"<header><p><a href=\"index.html\">&larr; {escape(title)}</a></p><h1>Every shown item</h1>"
            f"<form class=\"filters\" id=\"filters\">{''.join(filters)}</form>"
            f"<p class=\"counts\" id=\"f-count\">{len(rows)} of {len(rows)} items</p></header>\n<main>"
            f"<table class=\"itemlist\" id=\"itemlist\"><thead><tr><th></th><th>task</th><th>complex</th><th>item</th>"
            f"<th>answer</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></main>"
            "<script src=\"filter.js\"></script>")
    return _page(f"items — {title}", body, "")


# ---------------------------------------------------------------- task page
def _options_line(iv: ItemView, root: str) -> str:
    """The options of an MC item in one line: letter, text or a small image, answer and pick marked."""
    row = iv.row
    if not row["options"]:
        return ""
    roles = list(row["image_roles"])
    picked = iv.prediction.parsed if iv.prediction is not None else None
    cells = []
    for k, text in enumerate(row["options"]):
        letter = "ABCD"[k] if k < 4 else str(k)
        role = f"option {letter}"
        body = escape(text)
        if not text and role in roles and roles.index(role) < len(iv.small):
            body = _img(f"{root}img/{iv.small[roles.index(role)]}", f"{row['id']} {role}")
        cls = ["opt"] + (["correct"] if letter == row["answer"] else []) + (["picked"] if picked == letter else [])
        cells.append(f"<span class=\"{' '.join(cls)}\"><b>{letter}</b> {body}</span>")
    return f"<div class=\"optline\">{''.join(cells)}</div>"


def task_page(tv: TaskView, title: str) -> str:
    """A task's page: each shown item as a card — images in order labelled by role, the question
    (folded), the options, the answer and the model's reply, parsed answer and score — linking to
    its item page (large images, metadata)."""
    code = task_codes().get(tv.task, "?")
    cards = []
    for iv in tv.items:
        row = iv.row
        rid = row["id"]
        strip = "".join(
            f"<figure class=\"thumb\">{_img(f'../img/{s}', f'{rid} {role}')}"
            f"<figcaption>{escape(role)}</figcaption></figure>"
            for s, role in zip(iv.small, row["image_roles"]) if not role.startswith("option "))
        pred = ""
        for model, p in iv.predictions.items():
            reply = "(no prediction)" if p.reply is None else p.reply
            parsed = p.parsed if p.parsed is not None else "—"
            who = "model" if len(iv.predictions) == 1 else escape(model)
            pred += (f"<p class=\"pred\">{who}: <code>{escape(parsed)}</code> {_badge(p)}</p>"
                     f"<details class=\"reply\"><summary>reply</summary><pre>{escape(reply)}</pre></details>")
        key = (f"<figure class=\"thumb key\">{_img(f'../img/{iv.key}', f'{rid} key image')}"
               "<figcaption>ligand close-up</figcaption></figure>") if iv.key else ""
        cards.append(
            f"<article class=\"itemcard\"><h3><a href=\"{escape(quote(iv.page))}\">{escape(row['id'])}</a></h3>"
            f"<div class=\"strip\">{key}{strip}</div>"
            f"<details class=\"q\"><summary>question</summary><pre class=\"question\">{escape(row['question'])}</pre>"
            f"</details>{_options_line(iv, '../')}"
            f"<p class=\"answer\">answer: <code>{escape(row['answer'])}</code></p>{pred}</article>"
        )
    counts = " · ".join(f"{split} {n}" for split, n in sorted(tv.counts.items()))
    body = (f"<header><p><a href=\"../index.html\">&larr; {escape(title)}</a></p>"
            f"<h1><span class=\"code\">{code}</span> {escape(tv.task)}</h1>"
            f"<p class=\"blurb\">{escape(task_blurb(tv.task))}</p>"
            f"<p class=\"counts\">{len(tv.items)} of {sum(tv.counts.values())} items shown ({escape(counts)})</p>"
            f"</header>\n<main class=\"items\">\n" + "\n".join(cards) + "\n</main>")
    return _page(f"{code} {tv.task} — {title}", body, "../")


# ---------------------------------------------------------------- item page
def _command(c: Mapping[str, Any]) -> str:
    return f"{c['op']} {c['axis']} {c['value']}"


def _is_command(v: Any) -> bool:
    return isinstance(v, Mapping) and {"op", "axis", "value"} <= set(v)


def _is_matrix(v: Any) -> bool:
    return (isinstance(v, list) and len(v) == 3 and all(isinstance(r, list) and len(r) == 4 for r in v)
            and all(isinstance(x, (int, float)) for r in v for x in r))


def _matrix(v: list[list[float]]) -> str:
    return "<pre class=\"matrix\">" + "\n".join(" ".join(f"{x:8.3f}" for x in r) for r in v) + "</pre>"


def _is_hbond(v: Any) -> bool:
    return isinstance(v, Mapping) and {"res_name", "pocket_atom_name", "ligand_atom_name"} <= set(v)


def _hbond_table(bonds: Sequence[Mapping[str, Any]]) -> str:
    if not bonds:
        return "<em>none</em>"
    rows = "".join(
        f"<tr><td>{escape(str(b.get('res_name')))} {escape(str(b.get('res_id', '')))}</td>"
        f"<td>{escape(str(b.get('chain', '')))}</td><td>{escape(str(b.get('pocket_atom_name')))}</td>"
        f"<td>{escape(str(b.get('ligand_atom_name')))}</td><td>{escape(str(b.get('distance', '')))}</td></tr>"
        for b in bonds)
    return ("<table class=\"hbonds\"><thead><tr><th>residue</th><th>chain</th><th>pocket atom</th>"
            f"<th>ligand atom</th><th>distance Å</th></tr></thead><tbody>{rows}</tbody></table>")


def _meta_value(v: Any) -> str:
    if _is_command(v):
        return f"<code>{escape(_command(v))}</code>"
    if isinstance(v, list) and v and all(_is_command(c) for c in v):
        return "<code>" + escape(", ".join(_command(c) for c in v)) + "</code>"
    if _is_matrix(v):
        return _matrix(v)
    if isinstance(v, list) and v and all(_is_matrix(m) for m in v):
        return "".join(f"<p>canonical option {i}</p>{_matrix(m)}" for i, m in enumerate(v))
    if _is_hbond(v):
        return _hbond_table([v])
    if isinstance(v, list) and all(_is_hbond(b) for b in v):
        return _hbond_table(v)
    if isinstance(v, (str, int, float, bool)) or v is None:
        return f"<code>{escape(json.dumps(v))}</code>"
    return f"<code>{escape(json.dumps(v, separators=(', ', ': ')))}</code>"


#: Metadata keys about the camera and rendering, listed after the keys behind the answer.
_CAMERA_KEYS = ("camera", "camera_after", "query_camera", "render", "seed")


def metadata_block(meta_json: str) -> str:
    """The collapsible block of an item's metadata: a table of its fields, then the raw JSON."""
    try:
        meta = json.loads(meta_json or "{}")
    except json.JSONDecodeError:
        return f"<details class=\"meta\"><summary>metadata (not JSON)</summary><pre>{escape(meta_json)}</pre></details>"
    if not isinstance(meta, dict):
        meta = {"value": meta}
    keys = [k for k in meta if k not in _CAMERA_KEYS] + [k for k in _CAMERA_KEYS if k in meta]
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{_meta_value(meta[k])}</td></tr>" for k in keys)
    raw = escape(json.dumps(meta, indent=2, sort_keys=True))
    return (f"<details class=\"meta\" open><summary>metadata behind the answer</summary>"
            f"<table class=\"metatable\">{rows}</table>"
            f"<details class=\"raw\"><summary>raw JSON</summary><pre>{raw}</pre></details></details>")


def _option_role(role: str) -> str | None:
    return role.split(" ", 1)[1] if role.startswith("option ") else None


def item_page(iv: ItemView, title: str, prev_page: str | None, next_page: str | None) -> str:
    """An item's page: images by role, question, options, answer, prediction and metadata."""
    row = iv.row
    code = task_codes().get(row["task"], "?")
    roles = list(row["image_roles"])
    figures, option_img = [], {}
    for k, role in enumerate(roles):
        if k >= len(iv.medium):
            break
        letter = _option_role(role)
        src = f"../img/{iv.medium[k]}"
        if letter is not None:
            option_img[letter] = src
        else:
            figures.append(_img(src, f"{row['id']} image {k + 1}: {role}", link=src, caption=f"{k + 1}. {role}"))
    pred = iv.prediction
    options = ""
    if row["options"]:
        picked = pred.parsed if pred is not None else None
        lis = []
        for k, text in enumerate(row["options"]):
            letter = "ABCD"[k] if k < 4 else str(k)
            marks = []
            if letter == row["answer"]:
                marks.append("<span class=\"badge good\">answer</span>")
            if picked == letter:
                marks.append(f"<span class=\"badge {'good' if letter == row['answer'] else 'bad'}\">model</span>")
            body = escape(text) if text else ""
            if letter in option_img:
                src = option_img[letter]
                body += _img(src, f"{row['id']} option {letter}", link=src)
            cls = " class=\"correct\"" if letter == row["answer"] else ""
            lis.append(f"<li{cls}><span class=\"letter\">{letter}.</span> {body} {' '.join(marks)}</li>")
        options = "<section><h2>Options</h2><ol class=\"options\">" + "".join(lis) + "</ol></section>"
    pred_html = ""
    if iv.predictions:
        lines = [f"<tr class=\"truth\"><th>answer</th><td></td><td><code>{escape(row['answer'])}</code></td><td></td></tr>"]
        for model, p in iv.predictions.items():
            reply = "(no prediction)" if p.reply is None else p.reply
            parsed = "—" if p.parsed is None else p.parsed
            lines.append(f"<tr><th>{escape(model)}</th><td><pre>{escape(reply)}</pre></td>"
                         f"<td><code>{escape(parsed)}</code></td><td>{_badge(p)} {p.score:.3f} "
                         f"({'exact' if p.exact else 'not exact'}; {escape(p.status)})</td></tr>")
        pred_html = ("<section class=\"prediction\"><h2>Models</h2><table class=\"predtable\"><thead><tr><th>model</th>"
                     "<th>reply</th><th>parsed answer</th><th>score</th></tr></thead><tbody>"
                     + "".join(lines) + "</tbody></table></section>")
    view3d = ""
    if iv.structure:
        view3d = ("<section class=\"view3d\"><h2>3-D view</h2>"
                  f"<div id=\"viewer3d\" class=\"viewer3d\" data-complex=\"{escape(row['complex_id'])}\"></div>"
                  "<p class=\"note\">The complex as in its files, the bound pose (pocket sticks with purple carbons, ligand ball and "
                  "stick in grey, no hydrogens): drag "
                  "to turn, scroll to zoom. Drawn by 3Dmol.js (BSD-3-Clause), bundled with the site.</p></section>"
                  f"<script src=\"../vendor/3Dmol-min.js\"></script><script src=\"../{escape(quote(iv.structure))}\"></script>"
                  "<script src=\"../view3d.js\"></script>")
    nav = [f"<a href=\"index.html\">&uarr; {code} {escape(row['task'])}</a>"]
    if prev_page:
        nav.insert(0, f"<a href=\"{escape(quote(prev_page))}\" rel=\"prev\">&larr; previous</a>")
    if next_page:
        nav.append(f"<a href=\"{escape(quote(next_page))}\" rel=\"next\">next &rarr;</a>")
    body = (
        f"<header><nav>{' · '.join(nav)}</nav><h1><span class=\"code\">{code}</span> {escape(row['id'])}</h1>"
        f"<p class=\"counts\">complex {escape(row['complex_id'])} · split {escape(row['split'])} · "
        f"{len(roles)} images</p></header>\n<main>\n"
        f"<section><h2>Images</h2><div class=\"images\">{''.join(figures)}</div></section>\n"
        f"<section><h2>Question</h2><pre class=\"question\">{escape(row['question'])}</pre></section>\n"
        f"{options}\n<section><h2>Answer</h2><p class=\"answer\"><code>{escape(row['answer'])}</code></p></section>\n"
        f"{pred_html}\n<section>{metadata_block(row.get('metadata') or '{}')}</section>\n{view3d}\n</main>"
    )
    return _page(f"{row['id']} — {title}", body, "../")
