#include "app/gui/ica_properties_view.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "app/gui/ica_component_model.h"
#include "app/gui/ica_results_pane.h"
#include "engine/ica/infomax.h"
#include "widgets/scalp_map_view.h"

namespace modescope {
namespace {

// Diverging blue-white-red for a value in [-1, 1] (EEGLAB's erpimage and MNE's RdBu_r).
QColor diverging(double v) {
  v = std::clamp(v, -1.0, 1.0);
  const int fade = static_cast<int>(255 * (1.0 - std::fabs(v)));
  return v >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

// A line plot with axes: x values, y values, labels.
void drawPlot(QPainter& p, const QRectF& r, const std::vector<double>& x,
              const std::vector<double>& y, const QString& xLabel, const QString& yLabel) {
  p.setPen(Qt::black);
  p.drawRect(r);
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width(), 16), Qt::AlignCenter, xLabel);
  p.drawText(QRectF(r.left() + 4, r.top() + 2, r.width(), 16), Qt::AlignLeft, yLabel);
  if (x.size() < 2 || x.size() != y.size()) return;
  const auto [y0, y1] = std::minmax_element(y.begin(), y.end());
  const double lo = *y0, hi = *y1 > *y0 ? *y1 : *y0 + 1.0;
  const double xl = x.front(), xh = x.back() > x.front() ? x.back() : x.front() + 1.0;
  QPainterPath path;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const QPointF pt(r.left() + (x[i] - xl) / (xh - xl) * r.width(),
                     r.bottom() - (y[i] - lo) / (hi - lo) * r.height());
    i == 0 ? path.moveTo(pt) : path.lineTo(pt);
  }
  p.setPen(QPen(QColor(0x1c, 0x5c, 0xc0), 1.5));
  p.drawPath(path);
  p.setPen(Qt::darkGray);
  p.drawText(QRectF(r.left() - 60, r.top() - 2, 56, 14), Qt::AlignRight,
             QString::number(hi, 'g', 3));
  p.drawText(QRectF(r.left() - 60, r.bottom() - 12, 56, 14), Qt::AlignRight,
             QString::number(lo, 'g', 3));
  p.drawText(QRectF(r.left() - 20, r.bottom() + 2, 40, 14), Qt::AlignCenter,
             QString::number(xl, 'g', 3));
  p.drawText(QRectF(r.right() - 20, r.bottom() + 2, 40, 14), Qt::AlignCenter,
             QString::number(xh, 'g', 3));
}

class SpectrumPlot : public QWidget {
 public:
  explicit SpectrumPlot(const IcaComponentProperties* p, QWidget* parent) : QWidget(parent), p_(p) {
    setMinimumSize(320, 200);
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    drawPlot(painter, QRectF(64, 10, width() - 76, height() - 40), p_->frequencies, p_->powerDb,
             tr("Hz"), tr("power, dB"));
  }

 private:
  const IcaComponentProperties* p_;
};

// The epoch image (rows top to bottom in time), the average under it, the variance share per
// row beside it.
class EpochImage : public QWidget {
 public:
  explicit EpochImage(const IcaComponentProperties* p, QWidget* parent) : QWidget(parent), p_(p) {
    setMinimumSize(520, 320);
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    const int bars = p_->variancePercent.empty() ? 0 : 90;
    const QRectF img(64, 20, width() - 76 - bars, (height() - 60) * 0.68);
    const QRectF avg(64, img.bottom() + 8, img.width(), height() - img.bottom() - 36);
    painter.drawText(QRectF(img.left(), 2, img.width(), 16), Qt::AlignLeft,
                     tr("%1 rows of %2 s").arg(p_->rows.size()).arg(p_->rowSeconds, 0, 'g', 3));
    if (!p_->rows.empty() && p_->rowSamples > 0) {
      // Colour scale: the 98th percentile of |activation|, symmetric (erpimage's default).
      std::vector<float> all;
      for (const auto& row : p_->rows)
        for (float v : row) all.push_back(std::fabs(v));
      const std::size_t q = static_cast<std::size_t>(0.98 * static_cast<double>(all.size() - 1));
      std::nth_element(all.begin(), all.begin() + q, all.end());
      const double scale = all[q] > 0 ? all[q] : 1.0;
      QImage image(p_->rowSamples, static_cast<int>(p_->rows.size()), QImage::Format_RGB32);
      for (int r = 0; r < image.height(); ++r)
        for (int c = 0; c < image.width(); ++c)
          image.setPixelColor(c, r, diverging(p_->rows[r][c] / scale));
      painter.drawImage(img, image);
      painter.setPen(Qt::black);
      painter.drawRect(img);
      std::vector<double> t(p_->average.size());
      for (std::size_t i = 0; i < t.size(); ++i)
        t[i] = p_->rowStartSeconds + static_cast<double>(i) / (p_->rowSamples / p_->rowSeconds);
      drawPlot(painter, avg, t, p_->average, tr("s"), tr("average"));
    }
    if (bars > 0) {
      const QRectF bar(img.right() + 8, img.top(), bars - 12, img.height());
      painter.setPen(Qt::black);
      painter.drawRect(bar);
      painter.drawText(QRectF(bar.left(), 2, bar.width(), 16), Qt::AlignCenter, tr("var. %"));
      const double top =
          std::max(1.0, *std::max_element(p_->variancePercent.begin(), p_->variancePercent.end()));
      const double h = bar.height() / static_cast<double>(p_->variancePercent.size());
      for (std::size_t r = 0; r < p_->variancePercent.size(); ++r)
        painter.fillRect(QRectF(bar.left(), bar.top() + h * r,
                                bar.width() * p_->variancePercent[r] / top, std::max(1.0, h - 1)),
                         QColor(0x1c, 0x5c, 0xc0));
      painter.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), 14), Qt::AlignRight,
                       QString::number(top, 'f', 0));
    }
  }

 private:
  const IcaComponentProperties* p_;
};

}  // namespace

IcaPropertiesView::IcaPropertiesView(IcaResultsPane* pane, int component)
    : QDialog(pane), pane_(pane), component_(component) {
  setObjectName(QStringLiteral("icaPropertiesView"));
  setWindowTitle(tr("IC %1 properties - %2").arg(component + 1).arg(pane->title()));
  const IcaFile& file = *pane->file();
  const Recording& rec = *pane->recording();
  std::vector<std::size_t> chans;
  for (const IcaFileChannel& c : file.channels) chans.push_back(c.recordingIndex);
  const SignalBlock block = extractBlock(rec, chans, file.startSeconds(),
                                         static_cast<double>(file.samples) / file.sampleRate);
  const std::vector<float> act = icaActivations(file.result, block);
  const auto n = static_cast<std::size_t>(block.samples);
  activation_.assign(act.begin() + static_cast<std::ptrdiff_t>(component * n),
                     act.begin() + static_cast<std::ptrdiff_t>((component + 1) * n));
  channels_.resize(chans.size() * n);
  for (std::size_t c = 0; c < chans.size(); ++c)
    std::copy(block.channel(c), block.channel(c) + n, channels_.begin() + c * n);
  means_ = file.result.mean;

  heading_ = new QLabel(this);
  heading_->setWordWrap(true);
  heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  map_ = new ScalpMapView(this);
  map_->setMinimumSize(220, 220);
  map_->setMap(pane->mapChannels(), pane->mapValues(component), tr("IC %1").arg(component + 1),
               tr("a.u."));
  spectrum_ = new SpectrumPlot(&properties_, this);
  image_ = new EpochImage(&properties_, this);
  rows_ = new QComboBox(this);
  rows_->setObjectName(QStringLiteral("icaPropertiesRows"));
  const IcaFlags& flags = pane->componentModel()->summary().flags;
  rows_->addItem(tr("consecutive %1 s segments").arg(flags.params.segmentSeconds), QString());
  std::set<std::string> texts;
  const double end = file.startSeconds() + static_cast<double>(file.samples) / file.sampleRate;
  for (const Annotation& a : rec.annotations)
    if (a.onset >= file.startSeconds() && a.onset < end) texts.insert(a.text);
  for (const std::string& t : texts)
    rows_->addItem(tr("epochs around '%1'").arg(QString::fromStdString(t)),
                   QString::fromStdString(t));
  connect(rows_, &QComboBox::currentIndexChanged, this,
          [this] { compute(rows_->currentData().toString()); });

  features_ = new QTableWidget(this);
  features_->setObjectName(QStringLiteral("icaPropertiesFeatures"));
  features_->setColumnCount(5);
  features_->setHorizontalHeaderLabels(
      {tr("Rule"), tr("Feature"), tr("Value"), tr("Threshold"), tr("Verdict")});
  features_->verticalHeader()->hide();
  features_->horizontalHeader()->setStretchLastSection(true);
  features_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  QString heading = tr("<b>IC %1</b>").arg(component + 1);
  if (static_cast<std::size_t>(component) < flags.components.size()) {
    const IcaComponentFlags& f = flags.components[static_cast<std::size_t>(component)];
    heading += tr(": %1 (confidence %2)")
                   .arg(QString::fromUtf8(icaFlagLabelName(f.label)))
                   .arg(f.confidence, 0, 'f', 2);
    for (const IcaDetectorVerdict& v : f.verdicts) {
      for (const IcaFlagFeature& feat : v.features) {
        const int row = features_->rowCount();
        features_->insertRow(row);
        features_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(v.rule)));
        features_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(feat.label)));
        features_->setItem(row, 2, new QTableWidgetItem(QString::number(feat.value, 'g', 4)));
        features_->setItem(row, 3,
                           new QTableWidgetItem(std::isnan(feat.threshold)
                                                    ? QStringLiteral("-")
                                                    : QString::number(feat.threshold, 'g', 4)));
        auto* verdict =
            new QTableWidgetItem(v.flagged ? tr("flagged %1, %2")
                                                 .arg(QString::fromUtf8(icaFlagLabelName(v.label)))
                                                 .arg(v.confidence, 0, 'f', 2)
                                           : tr("not flagged (%1)").arg(v.confidence, 0, 'f', 2));
        if (v.flagged) verdict->setForeground(QColor(0xc0, 0x1c, 0x1c));
        verdict->setToolTip(QString::fromStdString(v.reason));
        features_->setItem(row, 4, verdict);
      }
    }
  }
  heading_->setText(heading);
  features_->resizeColumnsToContents();

  auto* grid = new QGridLayout;
  grid->addWidget(map_, 0, 0);
  grid->addWidget(spectrum_, 0, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading_);
  layout->addLayout(grid);
  layout->addWidget(rows_);
  layout->addWidget(image_, 1);
  layout->addWidget(features_, 1);
  resize(900, 980);
  compute({});
}

void IcaPropertiesView::setRows(const QString& annotation) {
  const int i = rows_->findData(annotation);
  if (i >= 0) rows_->setCurrentIndex(i);
}

void IcaPropertiesView::compute(const QString& annotation) {
  const IcaFile& file = *pane_->file();
  std::vector<double> events;
  if (!annotation.isEmpty())
    for (const Annotation& a : pane_->recording()->annotations)
      if (QString::fromStdString(a.text) == annotation)
        events.push_back(a.onset - file.startSeconds());
  const double segment = pane_->componentModel()->summary().flags.params.segmentSeconds;
  properties_ = icaComponentProperties(activation_.data(), static_cast<int64_t>(activation_.size()),
                                       file.sampleRate, pane_->mapValues(component_),
                                       channels_.data(), means_, segment, events);
  spectrum_->update();
  image_->update();
}

}  // namespace modescope
