// The multichannel signal browser: the view clinicians spend their time in.
//
// Speed is the design goal (256 channels, 1 h at 1 kHz, 10,000 annotations must scroll
// continuously): only the visible page of the visible channels is read from the SignalSource;
// each trace is reduced to a min/max pair per pixel column before drawing; annotations are found
// by binary search on their sorted onsets. Montage (re-reference) and the display filter are
// applied to the page (padded by the filter length) through the engine's CPU preprocessing, never
// to the whole file.
//
// Thread rules: a GUI-thread widget. Its read-ahead task reads the recording's SignalSource from
// a background thread (sources are thread-safe, recording.h) and is waited for before the
// recording, montage or filter change and on destruction. docs/browser.md has the details and
// the benchmark.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/recording.h"
#include "engine/dsp/preprocess.h"
#include "engine/io/session.h"

class QPainter;

namespace modescope {
namespace browser {
struct DecimatedPage;
}

class SignalBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit SignalBrowser(QWidget* parent = nullptr);
  ~SignalBrowser() override;

  // Navigation steps (docs/browser.md): Left/Right and one wheel notch (120 eighths of a degree)
  // move by these fractions of a page; PageUp/PageDown by one page; Up/Down and shift+wheel by
  // one channel; +/- and ctrl+wheel divide/multiply the uV per division by kAmplitudeStep.
  static constexpr double kArrowStepFraction = 0.1;
  static constexpr double kWheelStepFraction = 0.1;
  static constexpr double kAmplitudeStep = 1.25;
  static constexpr double kMinPageLength = 0.1;  // s

  void setRecording(std::shared_ptr<const Recording> recording);
  std::shared_ptr<const Recording> recording() const;

  // Whole view state (page, scale, channels, montage, filter) for sessions.
  ViewState viewState() const;
  void setViewState(const ViewState& state);

  double pageStart() const;   // s
  double pageLength() const;  // s
  double microvoltsPerDivision() const;
  int firstVisibleChannel() const;
  int visibleChannelCount() const;
  std::vector<int> selectedChannels() const;
  std::vector<FilterSpec> displayFilters() const;

  // The page on screen (traces in row order, y in uV after montage and filter), nullptr before
  // the first paint: for the cursor read-out and the ruler (trace_measure_overlay.h).
  const browser::DecimatedPage* displayedPage() const;
  // Rows drawn: min(visibleChannelCount(), channels of the recording).
  int rowCount() const;
  // Label of the row's channel (name, else label).
  QString rowLabel(int row) const;

  // Extra annotations drawn with the file's (user marks); sorted by onset.
  void setUserAnnotations(std::vector<Annotation> annotations);
  // The file's annotations as the user corrected them, drawn instead of the recording's own
  // (nullopt: the recording's); sorted by onset. setRecording resets it.
  void setFileAnnotations(std::optional<std::vector<Annotation>> annotations);
  void setBadChannels(const std::vector<std::string>& names);

  // Renders the current page (traces, labels, time axis, annotations) into any painter: used by
  // paintEvent, PNG/SVG/PDF export and the benchmark.
  void renderPage(QPainter& painter, const QRect& area) const;
  // Background read-ahead of the next page when scrolling forward (default on; see
  // page_cache.h). Off: every scroll reads what came into view synchronously.
  void setReadAhead(bool enabled);

  // Exports the current page; the format follows the extension (.png, .svg, .pdf). Returns false
  // and sets *error when writing failed.
  bool exportPage(const QString& path, QString* error = nullptr) const;

 public slots:
  void setPageStart(double seconds);
  void setPageLength(double seconds);
  void setMicrovoltsPerDivision(double uv);
  void setFirstVisibleChannel(int index);
  void setVisibleChannelCount(int count);
  void setSelectedChannels(const std::vector<int>& channels);
  void setMontage(const ReferenceSpec& montage);
  void setDisplayFilter(std::optional<FilterSpec> filter);
  // A chain (high-pass + low-pass + notch together), applied as one kernel; empty: none.
  void setDisplayFilters(std::vector<FilterSpec> chain);
  void nextPage();
  void previousPage();
  void jumpTo(double seconds);        // centres the page on `seconds`
  void zoomTime(double factor);       // page length * factor
  void zoomAmplitude(double factor);  // uV per division * factor

 signals:
  void viewChanged();  // page, scale, channels, montage or filter changed
  void selectionChanged();
  void channelActivated(int channel);           // double-click on a label
  void displayProblem(const QString& message);  // e.g. a montage that does not fit the recording

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace modescope
