"""The notebook view: IPython magics and the anywidget explorer, glue only.

Magics parse their arguments and call the core (toolchains, dumps, analysis, export, share);
the explorer hands the viewer a payload. No logic worth testing lives only here.
"""
