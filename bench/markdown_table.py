"""Prints rows as a Markdown table with aligned columns (the benchmark reports share it)."""


def print_table(head, rows, left=(0,)):
    """Columns whose index is in `left` are left-aligned, the others right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    head = [str(c) for c in head]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) if i in left else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
