"""Floor 9 — one plotting toolkit for every plot (the roofline, the lessons' charts, the hover engine).

    coords     the one safe log10, the one log–log transform (Axes), view ↔ pixels, boxes,
               range and bar helpers                                    (pure: no Qt)
    placement  where a label goes: inside the view, off its marker and what it must avoid
                                                                        (pure: no Qt)
    axes       SIAxis (log ticks as SI numbers), NamesAxis (a category axis)
    labels     TextItems made once, then set_text/show_text/place
    scatter    pyqtgraph's scatter items without their one leak (clicked points outliving setData)

Nothing is imported here, so the pure modules load without Qt.
"""
