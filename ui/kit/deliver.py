"""Hand a plot's changes to its view now, ahead of the window's repaint (the roofline and the
lessons' charts call it once every view of the window has taken a change)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent


def deliver_now(plot) -> None:
    """Hand a plot's changes to its view now, ahead of the window's repaint: pyqtgraph's
    preparation for a paint first (a new view range's matrix, labels' transforms), then the
    scene's queued report of what changed, which Qt would deliver after the repaint and then
    repaint the window again for (Qt's graphics view paints its window at once on that report:
    call this when every view of the window has taken the change). What Qt would do before its
    repaint goes first, since that repaint is the one the graphics view does here, at once: the
    repaints it left for later (a stacked widget that shows another page posts one for each of
    the page's widgets) and the layouts the change asked for (a label's new width, a gauge's new
    type size). Without them each came as a second repaint of the window."""
    QCoreApplication.sendPostedEvents(None, QEvent.UpdateLater)
    QCoreApplication.sendPostedEvents(None, QEvent.LayoutRequest)
    scene = plot.scene()
    scene.prepareForPaint()
    QCoreApplication.sendPostedEvents(scene, QEvent.MetaCall)
