// The scale a recording opens with follows its data: the 5-95 % spread of a sine of amplitude A
// is 2 A sin(0.45 pi) = 1.975 A, rounded up in the 1-2-5 sequence.
#include "widgets/amplitude_autoscale.h"

#include <QtTest>
#include <cmath>
#include <numbers>

using namespace modescope;

namespace {

std::shared_ptr<Recording> sines(const std::vector<double>& amplitudes, ChannelType type) {
  auto rec = std::make_shared<Recording>();
  std::vector<std::vector<float>> data;
  for (double a : amplitudes) {
    ChannelInfo c;
    c.label = c.name = "ch" + std::to_string(data.size());
    c.type = type;
    c.sampleRate = 100;
    c.sampleCount = 2000;
    rec->channels.push_back(c);
    std::vector<float> x(2000);
    for (int i = 0; i < 2000; ++i)
      x[i] = static_cast<float>(a * std::sin(2 * std::numbers::pi * 1.3 * i / 100.0));
    data.push_back(std::move(x));
  }
  rec->source = std::make_shared<InMemorySource>(std::move(data));
  return rec;
}

}  // namespace

class AmplitudeAutoscaleTest : public QObject {
  Q_OBJECT
 private slots:
  void followsTheTypicalChannel() {
    QCOMPARE(suggestMicrovoltsPerDivision(*sines({100, 100, 100}, ChannelType::EEG)), 200.0);
    QCOMPARE(suggestMicrovoltsPerDivision(*sines({1000, 1000, 10}, ChannelType::EEG)), 2000.0);
    QCOMPARE(suggestMicrovoltsPerDivision(*sines({20, 20, 20}, ChannelType::EEG)), 50.0);
  }
  void flatOrStimulusOnlyDataKeepTheFallback() {
    QCOMPARE(suggestMicrovoltsPerDivision(*sines({0, 0}, ChannelType::EEG)), 50.0);
    QCOMPARE(suggestMicrovoltsPerDivision(*sines({100}, ChannelType::STIM)), 50.0);
  }
};

QTEST_GUILESS_MAIN(AmplitudeAutoscaleTest)
#include "amplitude_autoscale_test.moc"
