#!/usr/bin/env python3
"""formats_doc_check.py — the formats tables of docs/import.md and of the guide
(docs/guide/import.md) are the importer registry's (MCPP_IMPORT_FORMATS), as
`mcpp-receipts import --help` prints it: every format, in registry order, with
its summary, and no other; docs/import.md has a section for each.

usage: formats_doc_check.py MCPP_RECEIPTS docs/import.md [OTHER_DOC...] [--write]
       (--write rewrites the tables from the registry: run it after adding an importer)"""
import re
import subprocess
import sys

BEGIN = "<!-- formats: generated from the importer registry by tests/import/formats_doc_check.py --write -->"
END = "<!-- /formats -->"


def registry(binary):
    help_text = subprocess.run([binary, "import", "--help"], capture_output=True, text=True, check=True).stdout
    block = help_text.split("formats (", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    rows = [re.match(r"  (\S+)\s+(.*)$", line) for line in block]
    if not rows or not all(rows):
        sys.exit(f"cannot read the formats of `import --help`:\n{help_text}")
    return [(m.group(1), m.group(2)) for m in rows]


def table(rows):
    lines = [BEGIN, "| format | input |", "|---|---|"]
    lines += [f"| `{name}` | {summary.replace('|', '&#124;').replace('<', '&lt;').replace('>', '&gt;')} |" for name, summary in rows]
    return "\n".join(lines + [END])


def main():
    binary = sys.argv[1]
    docs = [a for a in sys.argv[2:] if a != "--write"]
    for i, doc in enumerate(docs):
        check(binary, doc, sections=i == 0)


def check(binary, doc, sections):
    text = open(doc, encoding="utf-8").read()
    want = table(registry(binary))
    if BEGIN not in text or END not in text:
        sys.exit(f"{doc}: no formats table (between '{BEGIN}' and '{END}')")
    have = text[text.index(BEGIN):text.index(END) + len(END)]
    if "--write" in sys.argv[3:]:
        open(doc, "w", encoding="utf-8").write(text.replace(have, want))
        print(f"{doc}: formats table rewritten")
        return
    if have != want:
        sys.exit(f"not ok - {doc}: the formats table differs from the registry; rerun\n"
                 f"  {sys.argv[0]} {binary} {doc} --write\nexpected:\n{want}\nfound:\n{have}")
    missing = [name for name, _ in registry(binary) if sections and f"\n## `{name}`" not in text]
    if missing:
        sys.exit(f"not ok - {doc}: no section '## `NAME` — ...' for {', '.join(missing)}")
    print(f"ok - {doc} lists the {len(registry(binary))} registered formats" + (", each with its section" if sections else ""))


if __name__ == "__main__":
    main()
