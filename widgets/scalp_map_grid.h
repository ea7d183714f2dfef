// A scrollable grid of compact scalp maps, one per column of a channels x maps matrix: the IC
// topographies of an ICA decomposition (column k of the mixing matrix is component k's map), as
// EEGLAB's pop_selectcomps and MNE's plot_components show them. All maps share one spline fit and
// are interpolated by a single matrix product (64 maps at 67 x 67 cells: a few ms).
//
// Interaction: a click selects a map (componentClicked); a double click or a Ctrl+click asks to
// mark or unmark it (componentToggled). The grid does not change marks by itself: the owner of
// the marks (the component browser, with its undo) calls setMarked. The current map has a
// highlight frame, marked maps a red one. Channels without a position are listed once, above the
// maps.
//
// Thread rules: GUI thread only.
#pragma once

#include <QScrollArea>
#include <QStringList>
#include <memory>
#include <vector>

#include "engine/core/recording.h"

class QPainter;

namespace modescope {

class ScalpMapView;

class ScalpMapGrid : public QScrollArea {
  Q_OBJECT

 public:
  explicit ScalpMapGrid(QWidget* parent = nullptr);
  ~ScalpMapGrid() override;

  // `matrix`: row-major channels.size() x `columns` (IcaMatrix::values of the mixing matrix);
  // map k shows column k under titles[k] (e.g. "IC1 12.3%"; missing titles become "IC<k+1>").
  // Marks and the current map are reset. A matrix of the wrong size, or fewer than 3 channels with
  // a position, shows the reason instead of maps (message()); nothing throws. Rows with a
  // non-finite entry are left out and listed as "(no value)".
  void setMaps(const std::vector<ChannelInfo>& channels, const std::vector<double>& matrix,
               int columns, const QStringList& titles, const QString& unit = {});
  void clear();

  int count() const;
  ScalpMapView* view(int index) const;  // nullptr outside [0, count())
  QStringList unmappedChannels() const;
  QString message() const;  // why there are no maps ("" when there are)

  void setMarked(int index, bool marked);
  bool isMarked(int index) const;
  std::vector<int> markedIndices() const;
  // The highlighted map (-1: none). Scrolls it into view.
  void setCurrent(int index);
  int current() const;

  // Tile edge in pixels (default 120); the number of columns follows the viewport width.
  void setTileSize(int pixels);
  int tileSize() const;
  int columnsShown() const;

  // The whole grid (every map, not only the visible ones) at the current tile size with
  // `columns` maps per row (0: as shown), for exportView: exportSize() is the size to pass.
  QSize exportSize(int columns = 0) const;
  void render(QPainter& painter, const QRect& area, int columns = 0) const;

 signals:
  void componentClicked(int index);
  void componentToggled(int index);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void relayout();
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace modescope
