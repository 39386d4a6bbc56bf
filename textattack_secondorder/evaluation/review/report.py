"""The review sheet as one self-contained HTML page, and as a text file of items (docs/design/review.md).

The page needs nothing but itself: its style and its plain JavaScript are inside, it loads nothing. The reader's
marks live in the page's ``localStorage`` under the sheet's id while it is open (a reload or a second visit finds
them), and the "Download marks" button writes them as CSV (``sheet, reader, id``, an open sheet's findings, then the
marks), which ``textattack-so review --score`` reads. Texts from the runs are escaped; a blind page holds no system
name, no gold label and no mark of changed words.
"""

import difflib
import html
import json
import re

from .marks import BLIND, UNSURE

esc = html.escape

#: the descriptive columns an open sheet's download carries with the marks (self-contained for ``--score``)
OPEN_COLUMNS = (
    "run",
    "system",
    "example",
    "label",
    "attacked",
    "run_findings",
    "original",
    "changed",
    "patched",
    "swap",
)
#: the marks of each mode, in the download's order
OPEN_MARKS = ("natural", "keeps_label", "note")
BLIND_MARKS = ("read_label", "natural", "note")

CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f6f9;color:#1f2933}
main{max-width:1100px;margin:0 auto;padding:16px 32px 64px}
h1{font-size:22px;margin:8px 0 4px}.sub{color:#52606d;font-size:13px;margin-bottom:8px}
.how{background:#fff;border:1px solid #d5dbe3;border-radius:8px;padding:8px 16px;font-size:13px;margin:8px 0}
.bar{position:sticky;top:0;z-index:2;background:#e9eef5;border:1px solid #d5dbe3;border-radius:8px;padding:8px 14px;
display:flex;gap:16px;align-items:center;flex-wrap:wrap;font-size:14px;margin:8px 0 14px}
.bar button{font-size:14px;padding:5px 12px;border-radius:6px;border:1px solid #4c6a92;background:#4c6a92;color:#fff;
cursor:pointer}.bar input[type=text]{font-size:14px;padding:3px 6px}
#progress{font-weight:600}#storage{color:#912018;font-size:12px}
.finding{background:#fff;border:1px solid #d5dbe3;border-left:6px solid #9aa5b1;border-radius:8px;padding:8px 14px;
margin:10px 0}.finding.done{border-left-color:#1e7b34}
.head{font-size:12px;color:#52606d;margin-bottom:4px}.head b{color:#1f2933;font-size:13px}
table.texts{border-collapse:collapse;width:100%;font-size:15px}
table.texts th{width:110px;text-align:left;vertical-align:top;color:#52606d;font-weight:600;font-size:12px;
padding:4px 8px 4px 0}table.texts td{padding:4px 0;white-space:pre-wrap;line-height:1.45}
.sentence{font-size:16px;white-space:pre-wrap;line-height:1.5;margin:4px 0 6px}
mark.old{background:#fde2e1;text-decoration:line-through;text-decoration-color:#b42318}mark.new{background:#fff1b8}
mark.swap{background:#d9ecff;outline:1px solid #4c6a92}
.marks{display:flex;gap:18px;flex-wrap:wrap;align-items:center;font-size:14px;margin-top:6px}
fieldset{border:1px solid #d5dbe3;border-radius:6px;padding:2px 10px 4px;margin:0}
legend{font-size:12px;color:#52606d;padding:0 4px}fieldset label{margin-right:10px;cursor:pointer}
.note input{width:260px;font-size:13px;padding:3px 6px}
body.unmarked-only .finding.done{display:none}
"""

JS = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("sheet-data").textContent);
  var STORE = "textattack-so-review:" + DATA.sheet;
  var stored = true;
  var state = {reader: "", marks: {}};
  try {
    var saved = window.localStorage.getItem(STORE);
    if (saved) { state = JSON.parse(saved); }
  } catch (e) { stored = false; }
  if (!state.marks) { state.marks = {}; }
  function save() {
    try { window.localStorage.setItem(STORE, JSON.stringify(state)); } catch (e) { stored = false; }
    document.getElementById("storage").textContent = stored ? "" :
      "This browser keeps no marks for this page: download them before you close it.";
  }
  var cards = Array.prototype.slice.call(document.querySelectorAll(".finding"));
  function marksOf(id) { return state.marks[id] || (state.marks[id] = {}); }
  function done(id) {
    var m = state.marks[id] || {};
    return DATA.required.every(function (k) { return m[k]; });
  }
  function refresh() {
    var n = 0;
    cards.forEach(function (card) {
      var ok = done(card.dataset.id);
      card.classList.toggle("done", ok);
      if (ok) { n += 1; }
    });
    document.getElementById("progress").textContent = n + " of " + cards.length + " marked";
  }
  cards.forEach(function (card) {
    var m = state.marks[card.dataset.id] || {};
    card.querySelectorAll("[data-mark]").forEach(function (el) {
      var v = m[el.dataset.mark];
      if (v === undefined) { return; }
      if (el.type === "radio") { el.checked = el.value === v; } else { el.value = v; }
    });
  });
  var reader = document.getElementById("reader");
  reader.value = state.reader || "";
  reader.addEventListener("input", function () { state.reader = reader.value; save(); });
  function record(e) {
    var el = e.target, card = el.closest(".finding");
    if (!card || !el.dataset.mark) { return; }
    marksOf(card.dataset.id)[el.dataset.mark] = el.value;
    save();
    refresh();
  }
  document.addEventListener("change", record);
  document.addEventListener("input", record);
  document.getElementById("unmarked").addEventListener("change", function (e) {
    document.body.classList.toggle("unmarked-only", e.target.checked);
  });
  function cell(v) { return '"' + String(v === undefined || v === null ? "" : v).replace(/"/g, '""') + '"'; }
  function csv() {
    var head = ["sheet", "reader", "id"].concat(DATA.columns, DATA.marks);
    var lines = [head.map(cell).join(",")];
    DATA.rows.forEach(function (row) {
      var m = state.marks[row.id] || {};
      var values = [DATA.sheet, state.reader || "", row.id];
      DATA.columns.forEach(function (c) { values.push(row[c]); });
      DATA.marks.forEach(function (k) { values.push(m[k]); });
      lines.push(values.map(cell).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }
  document.getElementById("download").addEventListener("click", function () {
    var blob = new Blob([csv()], {type: "text/csv;charset=utf-8"});
    var a = document.createElement("a");
    var who = (state.reader || "reader").replace(/[^A-Za-z0-9_.-]+/g, "_");
    a.href = URL.createObjectURL(blob);
    a.download = "review_marks_" + DATA.sheet + "_" + who + ".csv";
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });
  window.reviewSheet = {csv: csv, state: function () { return state; }};
  save();
  refresh();
})();
"""


# ------------------------------------------------------------------------------------------------ words
def _marked(text, changed, cls):
    """``text`` (tokens as :func:`word_changes` splits it) as HTML, the tokens in ``changed`` wrapped in
    ``<mark class=cls>`` (``changed``: token index -> class)."""
    out = []
    for i, token in enumerate(_tokens(text)):
        c = changed.get(i)
        out.append(f'<mark class="{c}">{esc(token)}</mark>' if c else esc(token))
    return "".join(out)


def _tokens(text):
    return re.findall(r"\s+|\S+", str(text))


def word_changes(a, b):
    """The token indices of ``a`` and of ``b`` (whitespace-separated words, :func:`_tokens`) that differ between the
    two: a word-level diff, so that a finding marks where its words changed."""
    ta, tb = _tokens(a), _tokens(b)
    wa = [i for i, t in enumerate(ta) if not t.isspace()]
    wb = [i for i, t in enumerate(tb) if not t.isspace()]
    matcher = difflib.SequenceMatcher(None, [ta[i] for i in wa], [tb[i] for i in wb], autojunk=False)
    in_a, in_b = set(), set()
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op != "equal":
            in_a.update(wa[a0:a1])
            in_b.update(wb[b0:b1])
    return in_a, in_b


# ------------------------------------------------------------------------------------------------ page
def _radio(item, mark, values):
    return "".join(
        f'<label><input type="radio" name="{mark}-{item}" value="{esc(v)}" data-mark="{mark}"> {esc(v)}</label>'
        for v in values
    )


def _marks_html(item, blind, labels, swap):
    note = f'<label class="note">note <input type="text" data-mark="note" aria-label="note on {item}"></label>'
    natural = (
        f"<fieldset><legend>reads as written by a person</legend>{_radio(item, 'natural', ('yes', 'no'))}</fieldset>"
    )
    if blind:
        label = (
            f"<fieldset><legend>the label it states</legend>{_radio(item, 'read_label', [*labels, UNSURE])}</fieldset>"
        )
        return f'<div class="marks">{label}{natural}{note}</div>'
    question = f"the swap {esc(swap)} keeps the label" if swap else "keeps the original's label"
    kept = f"<fieldset><legend>{question}</legend>{_radio(item, 'keeps_label', ('yes', 'no'))}</fieldset>"
    return f'<div class="marks">{natural}{kept}{note}</div>'


def _open_card(f):
    before, after = word_changes(f["original"], f["changed"])
    rows = [("original", _marked(f["original"], dict.fromkeys(before, "old"), None))]
    if f.get("patched"):
        swap_x, swap_p = word_changes(f["changed"], f["patched"])
        x0 = dict.fromkeys(after, "new") | dict.fromkeys(swap_x, "swap")
        same = " (x̃0 = x0: vulnerable as it stands)" if f["changed"] == f["original"] else ""
        rows.append((f"x̃0{same}", _marked(f["changed"], x0, None)))
        rows.append(("x̃0 ⊕ p", _marked(f["patched"], dict.fromkeys(swap_p, "swap"), None)))
    else:
        rows.append(("adversarial", _marked(f["changed"], dict.fromkeys(after, "new"), None)))
    texts = "".join(f"<tr><th>{esc(h)}</th><td>{t}</td></tr>" for h, t in rows)
    facts = [f"<b>#{f['id']}</b>", esc(str(f["system"])), f"row {esc(str(f['example']))}"]
    if str(f.get("label", "")) != "":
        facts.append(f"label {esc(str(f['label']))}")
    if f.get("outputs"):
        facts.append(f"model {'(x̃0 → x̃0 ⊕ p) ' if f.get('patched') else ''}{esc(f['outputs'])}")
    if f.get("swap"):
        facts.append(f"swap {esc(f['swap'])}")
    return (
        f'<article class="finding" data-id="{f["id"]}" id="item-{f["id"]}"><div class="head">{" · ".join(facts)}</div>'
        f'<table class="texts">{texts}</table>{_marks_html(f["id"], False, (), f.get("swap", ""))}</article>'
    )


def _blind_card(item_id, text, labels):
    return (
        f'<article class="finding" data-id="{item_id}" id="item-{item_id}"><div class="head"><b>#{item_id}</b></div>'
        f'<p class="sentence">{esc(text)}</p>{_marks_html(item_id, True, labels, "")}</article>'
    )


HOW_OPEN = (
    "Each finding is a sentence a run reported, beside the sentence it came from; changed words are marked "
    "(<mark class='old'>removed</mark>, <mark class='new'>put in</mark>, <mark class='swap'>the patch swap</mark>). "
    "Mark for each: does the changed sentence <b>read as written by a person</b>, and does it <b>keep the label</b> "
    "(an attack's sentence: it states what the original states; a second-order finding: x̃0 ⊕ p states what x̃0 "
    "states). A finding is accepted when both are yes. Your marks stay in this page in this browser; "
    "<b>Download marks</b> writes them as a CSV for <code>textattack-so review --score</code>."
)
HOW_BLIND = (
    "Each item is one sentence: some were written by people, some were changed by a program; you are not told "
    "which. For each, give <b>the label it states</b> as written (<code>unsure</code> when it says both or nothing "
    "you can tell) and whether it <b>reads as written by a person</b>. Judge each on its own. Your marks stay in "
    "this page in this browser; <b>Download marks</b> writes them as a CSV to hand back."
)


def render_html(sheet):
    """The page of a :class:`~.result.ReviewSheet`: its heading, the bar (reader, progress, download), one card per
    finding (open) or per sentence (blind), the data the download needs, the style and the script."""
    key = sheet.key
    blind = sheet.mode == BLIND
    if blind:
        items = key.drop_duplicates("id")
        cards = [_blind_card(int(r.id), r.text, sheet.labels) for r in items.itertuples()]
        rows, columns, marks, required = [{"id": int(i)} for i in items.id], [], BLIND_MARKS, ["read_label", "natural"]
        sub = f"{len(items)} sentences to read"
    else:
        records = key.to_dict("records")
        cards = [_open_card(f) for f in records]
        columns, marks, required = list(OPEN_COLUMNS), OPEN_MARKS, ["natural", "keeps_label"]
        rows = [{"id": int(f["id"]), **{c: _plain(f.get(c, "")) for c in columns}} for f in records]
        sub = f"{len(records)} findings · " + " · ".join(
            f"{esc(r['name'])}: {r['on_sheet']} of {r['findings']} findings, {r['attacked']} sentences attacked"
            for r in sheet.runs
        )
    data = {"sheet": sheet.sheet, "mode": sheet.mode, "columns": columns, "marks": list(marks), "rows": rows}
    data["required"] = required
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    bar = (
        '<div class="bar"><label>reader <input type="text" id="reader" placeholder="your name"></label>'
        '<span id="progress"></span><label><input type="checkbox" id="unmarked"> unmarked only</label>'
        '<button type="button" id="download">Download marks (CSV)</button><span id="storage"></span></div>'
    )
    title = esc(sheet.title)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{CSS}</style></head><body><main><h1>{title}</h1>"
        f'<div class="sub">{sub} · sheet {esc(sheet.sheet)}</div>'
        f'<div class="how">{HOW_BLIND if blind else HOW_OPEN}</div>{bar}{"".join(cards)}</main>'
        f'<script type="application/json" id="sheet-data">{payload}</script><script>{JS}</script></body></html>\n'
    )


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def text_items(key):
    """A blind key's sentences as the text file helper readers work from: ``#id``, the sentence, a blank line."""
    items = key.drop_duplicates("id").sort_values("id")
    return "\n".join(f"#{i}\n{t}\n" for i, t in zip(items.id, items.text))
