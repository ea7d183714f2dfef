// The time-frequency view (issue 18, item 3; docs/time-frequency.md, "The time-frequency view"):
// one channel of a recording (a file's channel, or an IMF or IC opened as a recording) as a
// spectrogram and its synchrosqueezed image, side by side or one of them, following the signal
// browser's page. Every parameter editor (order, window, lengths, hop, threshold, frequency
// range) is produced from tfParamTable(), so the view accepts what the engine and
// `modescope-cli tfr` accept; what is the view's own is the display (side by side / one image),
// the colour scale (log with a dB floor below the page's peak, or linear), the ridges drawn over
// the image and "hop fits the screen" (one column per screen pixel: the image is computed for
// what is on screen).
//
// Each page is computed off the GUI thread (TfPageWorker, newest request wins) for the page plus
// half a window either side, and drawn by two HilbertSpectrumViews: through the CUDA-OpenGL
// interop writer when their OpenGL context runs on the CUDA device, from host memory otherwise;
// the status line says which, how long the page took, and the cursor read-out.
//
// Thread rules: a GUI-thread widget.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>

#include "app/core/tf_modes_recording.h"
#include "app/core/tf_page.h"
#include "widgets/param_editor.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSplitter;

namespace modescope {

class HilbertSpectrumView;
class SpectrumPixelWriter;
class TfPageWorker;

class TfView : public QWidget {
  Q_OBJECT

 public:
  enum class Display { SideBySide, Spectrogram, Squeezed };

  explicit TfView(std::shared_ptr<ComputeBackend> backend, QWidget* parent = nullptr);
  ~TfView() override;

  // Installs a GPU pixel writer per image (the app's CUDA-OpenGL interop adapter).
  void setPixelWriterFactory(const std::function<std::unique_ptr<SpectrumPixelWriter>()>& make);
  void setBackend(std::shared_ptr<ComputeBackend> backend);

  // The channel shown and the page; each change recomputes.
  void setSource(std::shared_ptr<const Recording> recording, std::size_t channel,
                 const QString& title);
  void setPage(double startSeconds, double seconds);

  // The editors' parameters (with the hop the screen gives when "hop fits the screen" is on).
  TfParams params() const;
  void setParams(const TfParams& p);
  void setOrder(TfOrder order);
  void setDisplay(Display display);
  Display display() const;
  void setRidgeCount(int ridges);
  int ridgeCount() const;
  TfReadoutParams readout() const;  // the ridge editors' values
  void setLogColour(bool log);
  void setDbFloor(double db);

  std::shared_ptr<const TfPage> page() const { return page_; }  // last drawn page
  std::shared_ptr<const Recording> recording() const { return recording_; }
  std::size_t channel() const { return channel_; }
  QString title() const { return title_; }
  HilbertSpectrumView* spectrogramView() const { return spectrogram_; }
  HilbertSpectrumView* squeezedView() const { return squeezed_; }
  TfPageWorker* worker() const { return worker_; }
  QString statusText() const;
  QString problemText() const;  // the parameters' or the last page's error, "" when none

  // The figure as on screen (both images or the one shown): PNG, SVG or PDF by extension.
  bool exportFigure(const QString& path, QString* error = nullptr) const;
  // The ridges of the page on screen, with hop 1, as a modes request.
  TfModesRequest modesRequest() const;

 signals:
  void pageShown();  // a computed page has been handed to the images
  void reconstructRequested(const TfModesRequest& request);
  void exportRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void buildUi();
  void recompute();
  void showPage(std::shared_ptr<const TfPage> page);
  void applyColouring();
  void updateStatus();
  int plotPixels() const;

  std::shared_ptr<const Recording> recording_;
  std::size_t channel_ = 0;
  QString title_;
  double pageStart_ = 0.0, pageSeconds_ = 10.0;
  TfParams base_;  // what the editors do not show (maxBytes)
  ParamEditors<TfParams> editors_;
  ParamEditors<TfReadoutParams> readoutEditors_;
  QComboBox* display_ = nullptr;
  QComboBox* colour_ = nullptr;
  QDoubleSpinBox* dbFloor_ = nullptr;
  QCheckBox* fitHop_ = nullptr;
  QPushButton* export_ = nullptr;
  QPushButton* reconstruct_ = nullptr;
  QSplitter* images_ = nullptr;
  HilbertSpectrumView* spectrogram_ = nullptr;
  HilbertSpectrumView* squeezed_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* readout_ = nullptr;
  TfPageWorker* worker_ = nullptr;
  std::shared_ptr<const TfPage> page_;
  QString problem_;
  int requestedHop_ = 0;
};

}  // namespace modescope
