// The method contract's first promise: every declared parameter is accepted and refused alike by
// the engine (validateEmdParams, validateIcaParams, validateEntropyParams, and for Burg AR the
// table's validate: the checks without a sample rate), the real `modescope-cli` (a child process)
// and the dialog editor produced from the declaration, at every bound. The probes are each
// bound, one display step inside and outside it, and the special value; a step is what a spin box
// can show (10^-decimals), since a dialog cannot hold values between its steps.
#include <QCoreApplication>
#include <QProcess>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "engine/ar/ar_params.h"
#include "engine/core/error.h"
#include "engine/dsp/filter_param_table.h"
#include "engine/emd/emd_params.h"
#include "engine/entropy/entropy_params.h"
#include "engine/epochs/epoch_params.h"
#include "engine/hht/hht.h"
#include "engine/ica/ica_flags_params.h"
#include "engine/ica/ica_params.h"
#include "engine/memd/memd_params.h"
#include "engine/tf/tf_params.h"
#include "widgets/param_editor.h"

using namespace modescope;

#ifndef MODESCOPE_CLI
#define MODESCOPE_CLI ""
#endif

namespace {

// Values worth trying for a declaration: its bounds, a step either side of each, the special
// value; every choice and a word that is none; the ends of the seed range.
std::vector<ParamValue> probes(const ParamDecl& d) {
  std::vector<ParamValue> out;
  switch (d.kind) {
    case ParamKind::Flag:
      return {true, false};
    case ParamKind::Seed:
      return {uint64_t{0}, uint64_t{18446744073709551615ull}};
    case ParamKind::Choice:
      for (const ParamChoice& c : d.choices) out.emplace_back(c.name);
      out.emplace_back(std::string("no-such-choice"));
      return out;
    case ParamKind::Integer:
    case ParamKind::Real:
      break;
  }
  const double step = d.kind == ParamKind::Integer ? 1.0 : std::pow(10.0, -d.decimals);
  std::vector<double> xs;
  for (const auto& bound : {d.min, d.max})
    if (bound) xs.insert(xs.end(), {*bound - step, *bound, *bound + step});
  if (d.special) xs.push_back(*d.special);
  for (double x : xs) {
    if (d.kind == ParamKind::Integer)
      out.emplace_back(static_cast<int64_t>(std::llround(x)));
    else
      out.emplace_back(x);
  }
  return out;
}

// Equal up to a small part of the editor's display step (a spin box rounds to its decimals).
bool sameValue(const ParamDecl& d, const ParamValue& a, const ParamValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    return std::fabs(*x - y) <=
           1e-3 * std::pow(10.0, -d.decimals) + 1e-15 * std::max(std::fabs(*x), std::fabs(y));
  }
  return a == b;
}

// The dialog's verdict: an editor built from the declaration shows exactly the value set.
bool dialogAccepts(const ParamDecl& d, const ParamValue& v) {
  std::unique_ptr<QWidget> editor(makeParamEditor(d, nullptr));
  if (d.kind == ParamKind::Choice && !findChoice(d, std::get<std::string>(v))) return false;
  setParamEditorValue(editor.get(), d, v);
  return paramEditorProblem(editor.get(), d).isEmpty() &&
         sameValue(d, paramEditorValue(editor.get(), d), v);
}

// The real command line's verdict: parameters are checked before the input is opened, so a
// missing input gives exit 2 when they pass and exit 1 when one is refused.
int cliExit(const QStringList& arguments, QString* output) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QString::fromLocal8Bit(MODESCOPE_CLI), arguments);
  if (!p.waitForFinished(30000)) {
    p.kill();
    p.waitForFinished();
    return -1;
  }
  *output = QString::fromLocal8Bit(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

template <class P>
struct Method {
  const char* command;  // the CLI subcommand
  const ParamTable<P>* table;
  std::vector<P> bases;                    // tried in order until the field applies
  std::function<void(const P&)> validate;  // the engine's entry point
  // CLI arguments putting the command in the base's state, without the probed option.
  std::function<QStringList(const std::string& probedCli)> context;
  // A base for one field whose cross-field rule needs another field set (logFrequency needs
  // fMin > 0); the context gives the CLI the same.
  std::map<std::string, P> baseFor = {};
};

template <class P>
void checkEveryBound(const Method<P>& m, const QString& missingInput, const QString& output,
                     int* checked) {
  for (const ParamField<P>& f : m.table->fields()) {
    const P* base = nullptr;
    for (const P& b : m.bases)
      if (f.appliesTo(b)) {
        base = &b;
        break;
      }
    if (const auto it = m.baseFor.find(f.decl.key); it != m.baseFor.end()) base = &it->second;
    QVERIFY2(base, ("no base applies for " + f.decl.key).c_str());
    for (const ParamValue& v : probes(f.decl)) {
      const std::string text = std::holds_alternative<std::string>(v) ? std::get<std::string>(v)
                                                                      : formatValue(f.decl, v);
      const std::string what = f.decl.key + " = " + text;
      // Engine: the value in a struct where the field applies.
      bool engine = true;
      if (f.decl.kind != ParamKind::Choice || findChoice(f.decl, text)) {
        P p = *base;
        f.set(p, v);
        try {
          m.validate(p);
        } catch (const InvalidParameterError& e) {
          engine = false;
          QVERIFY2(e.parameter() == f.decl.key, (what + ": " + e.what()).c_str());
        }
      } else {
        engine = false;
      }
      // Dialog.
      const bool dialog = dialogAccepts(f.decl, v);
      QVERIFY2(dialog == engine, (what + ": engine " + (engine ? "accepts" : "refuses") +
                                  ", dialog " + (dialog ? "accepts" : "refuses"))
                                     .c_str());
      // Command line.
      if (f.decl.cli.empty()) continue;
      QStringList args{QString::fromLatin1(m.command), missingInput, QStringLiteral("-o"), output};
      args << m.context(f.decl.cli);
      if (f.decl.kind == ParamKind::Flag)
        args << QString::fromStdString((std::get<bool>(v) ? "--" : "--no-") + f.decl.cli);
      else
        args << QString::fromStdString("--" + f.decl.cli) << QString::fromStdString(text);
      QString out;
      const int code = cliExit(args, &out);
      QVERIFY2(code == (engine ? 2 : 1),
               (what + ": CLI exit " + std::to_string(code) + "\n" + out.toStdString()).c_str());
      if (!engine) {
        QVERIFY2(out.contains(QString::fromStdString("--" + f.decl.cli)),
                 (what + ": the CLI error must name the option\n" + out.toStdString()).c_str());
      }
      ++*checked;
    }
  }
}

// The filter's declarations: the command line writes a filter as one `--filter KIND:VALUES`
// text (filterSpecString), so each probe goes through that text; values the text cannot say (a
// transition width, a notch without harmonics) are probed in the engine and the dialog only, and
// pipeline files write them as objects of the same keys.
void checkEveryFilterBound(const QString& missingInput, const QString& output, int* checked) {
  FilterSpec highPass, lowPass, notch;
  highPass.kind = FilterKind::HighPass;
  lowPass.kind = FilterKind::LowPass;
  notch.kind = FilterKind::Notch;
  for (const ParamField<FilterSpec>& f : filterParamTable().fields()) {
    const FilterSpec* base = nullptr;
    for (const FilterSpec* b : {&highPass, &lowPass, &notch})
      if (!base && f.appliesTo(*b)) base = b;
    QVERIFY2(base, ("no base applies for " + f.decl.key).c_str());
    for (const ParamValue& v : probes(f.decl)) {
      const std::string what = "filter " + f.decl.key + " = " + formatValue(f.decl, v);
      FilterSpec p = *base;
      const bool known =
          f.decl.kind != ParamKind::Choice || findChoice(f.decl, formatValue(f.decl, v));
      bool engine = known;
      if (known) {
        f.set(p, v);
        try {
          filterParamTable().validate(p);
        } catch (const InvalidParameterError& e) {
          engine = false;
          QVERIFY2(e.parameter() == f.decl.key, (what + ": " + e.what()).c_str());
        }
      }
      const bool dialog = dialogAccepts(f.decl, v);
      QVERIFY2(dialog == engine, (what + ": engine " + (engine ? "accepts" : "refuses") +
                                  ", dialog " + (dialog ? "accepts" : "refuses"))
                                     .c_str());
      // The probed value in the text; an unknown kind keeps the base's values
      // ("no-such-choice:1").
      std::optional<std::string> text = filterSpecString(p);
      if (!text) continue;
      if (!known) text = formatValue(f.decl, v) + text->substr(text->find(':'));
      QString out;
      const int code = cliExit({QStringLiteral("filter"), missingInput, QStringLiteral("-o"),
                                output, QStringLiteral("--filter"), QString::fromStdString(*text)},
                               &out);
      QVERIFY2(code == (engine ? 2 : 1), (what + " (" + *text + "): CLI exit " +
                                          std::to_string(code) + "\n" + out.toStdString())
                                             .c_str());
      if (!engine) {
        QVERIFY2(out.contains(QStringLiteral("--filter")),
                 (what + ": the CLI error must name the option\n" + out.toStdString()).c_str());
      }
      ++*checked;
    }
  }
}

}  // namespace

class ParamContractTest : public QObject {
  Q_OBJECT

 private slots:
  void everyDeclaredBoundAgreesInEngineCliAndDialog() {
    if (std::string(MODESCOPE_CLI).empty()) QSKIP("MODESCOPE_CLI is not set by the build");
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("missing.edf"));
    const QString out = dir.filePath(QStringLiteral("out.h5"));
    int checked = 0;

    // EMD: theta1 may reach its bound only with theta2 above it (the cross-field rule), so the
    // bases open that room: theta1 0.001, theta2 10.
    auto open = [](EmdParams p) {
      for (StopRule* r : {&p.stop, &p.noiseStop}) {
        r->threshold1 = 0.001;
        r->threshold2 = 10;
      }
      return p;
    };
    EmdParams rilling = open(emdPreset("iceemdan-colominas"));
    EmdParams fixed = rilling, sNumber = rilling, eemd = open(emdPreset("eemd-wu"));
    fixed.stop.kind = fixed.noiseStop.kind = StopRuleKind::FixedSifts;
    sNumber.stop.kind = sNumber.noiseStop.kind = StopRuleKind::SNumber;
    Method<EmdParams> emd{
        "emd",
        &emdParamTable(),
        {rilling, fixed, sNumber, eemd},
        validateEmdParams,
        [](const std::string& probed) {
          QStringList a{QStringLiteral("--preset"), QStringLiteral("iceemdan-colominas")};
          for (const char* o : {"theta1", "noise-theta1"})
            if (probed != o) a << QStringLiteral("--") + o << QStringLiteral("0.001");
          for (const char* o : {"theta2", "noise-theta2"})
            if (probed != o) a << QStringLiteral("--") + o << QStringLiteral("10");
          return a;
        }};
    checkEveryBound(emd, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    // The Hilbert spectrum of `emd`: the rules that need the block (Nyquist, edges) wait for
    // the recording; logarithmic bins are probed with a lowest frequency above 0 Hz.
    HhtParams logBase;
    logBase.fMin = 0.5;
    Method<HhtParams> hht{"emd",
                          &hhtParamTable(),
                          {HhtParams{}},
                          [](const HhtParams& p) { hhtParamTable().validate(p); },
                          [](const std::string& probed) {
                            return probed == "log-freq" ? QStringList{QStringLiteral("--fmin"),
                                                                      QStringLiteral("0.5")}
                                                        : QStringList{};
                          },
                          {{"logFrequency", logBase}}};
    checkEveryBound(hht, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    Method<IcaParams> ica{"ica",
                          &icaParamTable(),
                          {icaPreset("eeglab-runica")},
                          validateIcaParams,
                          [](const std::string&) { return QStringList{}; }};
    checkEveryBound(ica, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    // The ICA flags' thresholds (`ica-flags`, whose positional is the ICA file: missing too).
    Method<IcaFlagParams> flags{"ica-flags",
                                &icaFlagParamTable(),
                                {IcaFlagParams{}},
                                validateIcaFlagParams,
                                [](const std::string&) { return QStringList{}; }};
    checkEveryBound(flags, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    // Burg AR: the CLI checks, before it opens the input, what needs no sample rate (the
    // table's validate); the rest (window >= order + 1 samples, centres <= fs/2) waits for the
    // recording's rate. Lengths of 1 s hold in either unit, and 0.01 Hz bins make every probed
    // centre a whole number of widths from the other.
    BurgArParams ar = burgArPreset("bci2000");
    ar.window = {1, ArLengthUnit::Seconds};
    ar.step = {1, ArLengthUnit::Seconds};
    ar.binWidth = 0.01;
    Method<BurgArParams> burg{
        "ar",
        &burgArParamTable(),
        {ar},
        [](const BurgArParams& p) { burgArParamTable().validate(p); },
        [](const std::string& probed) {
          QStringList a{QStringLiteral("--preset"), QStringLiteral("bci2000")};
          for (const auto& [o, v] :
               {std::pair{"window", "1"}, std::pair{"step", "1"}, std::pair{"first-bin", "0"},
                std::pair{"last-bin", "30"}, std::pair{"bin-width", "0.01"}})
            if (probed != o) a << QStringLiteral("--") + o << QString::fromLatin1(v);
          return a;
        }};
    checkEveryBound(burg, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    // Entropy: the epoch length applies with a fixed length (0 is the whole selection).
    EntropyParams entropy;
    entropy.epochSamples = 1024;
    Method<EntropyParams> xapen{
        "xapen", &entropyParamTable(), {entropy}, validateEntropyParams, [](const std::string&) {
          return QStringList{};
        }};
    checkEveryBound(xapen, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    // MEMD: sd may reach its bound only with sd2 above it; the NA-MEMD fields apply with noise
    // channels; --sifts and --s-number select their rule on the command line.
    MemdParams memdStop;
    memdStop.sd = 0.001;
    memdStop.sd2 = 10;
    memdStop.noiseChannels = 4;
    MemdParams memdFixH = memdStop, memdFixed = memdStop;
    memdFixH.stop = MemdStopKind::FixH;
    memdFixed.stop = MemdStopKind::Fixed;
    Method<MemdParams> memd{
        "memd",
        &memdParamTable(),
        {memdStop, memdFixH, memdFixed},
        validateMemdParams,
        [](const std::string& probed) {
          QStringList a;
          for (const auto& [o, v] :
               {std::pair{"sd", "0.001"}, std::pair{"sd2", "10"}, std::pair{"noise-channels", "4"}})
            if (probed != o) a << QStringLiteral("--") + o << QString::fromLatin1(v);
          return a;
        }};
    checkEveryBound(memd, missing, out, &checked);

    // Time-frequency: the shortest window and the longest FFT leave every length probe clear of
    // the FFT >= window rule; order 0 lets every window through, and the threshold (orders 1-4
    // only) is probed at order 3.
    TfParams spectrogram;
    spectrogram.order = TfOrder::Spectrogram;
    spectrogram.windowLength = kTfMinWindow;
    spectrogram.fftLength = kTfMaxFft;
    TfParams squeezed = spectrogram;
    squeezed.order = TfOrder::Third;
    Method<TfParams> tfr{"tfr",
                         &tfParamTable(),
                         {spectrogram, squeezed},
                         validateTfParams,
                         [](const std::string& probed) {
                           QStringList a;
                           if (probed != "fft")
                             a << QStringLiteral("--fft") << QStringLiteral("65536");
                           if (probed != "window-length")
                             a << QStringLiteral("--window-length") << QStringLiteral("4");
                           if (probed != "threshold" && probed != "order")
                             a << QStringLiteral("--order") << QStringLiteral("0");
                           return a;
                         }};
    checkEveryBound(tfr, missing, out, &checked);

    // Epochs: tmin < tmax and the baseline inside the window are cross-field rules, so each of
    // those fields is probed in a base that leaves its whole range open (the window -60..60 s).
    EpochParams wide;
    wide.tmin = -60;
    wide.tmax = 60;
    wide.baselineStart = -60;
    wide.baselineEnd = 60;
    EpochParams forTmin, forTmax;
    forTmin.tmax = 60;
    forTmin.baseline = false;
    forTmax.tmin = -60;
    forTmax.baseline = false;
    Method<EpochParams> epoch{
        "epoch",
        &epochParamTable(),
        {EpochParams{}},
        validateEpochParams,
        [](const std::string& probed) {
          QStringList a{QStringLiteral("--events"), QStringLiteral("T1")};
          auto add = [&](const char* o, const char* v) {
            if (probed != o) a << QStringLiteral("--") + QLatin1String(o) << QLatin1String(v);
          };
          if (probed == "tmin") {
            add("tmax", "60");
            a << QStringLiteral("--no-baseline");
          } else if (probed == "tmax") {
            add("tmin", "-60");
            a << QStringLiteral("--no-baseline");
          } else if (probed == "baseline-start" || probed == "baseline-end") {
            add("tmin", "-60");
            add("tmax", "60");
            add("baseline-start", "-60");
            add("baseline-end", "60");
          }
          return a;
        },
        {{"tmin", forTmin}, {"tmax", forTmax}, {"baselineStart", wide}, {"baselineEnd", wide}}};
    checkEveryBound(epoch, missing, out, &checked);
    if (QTest::currentTestFailed()) return;

    checkEveryFilterBound(missing, out, &checked);
    QVERIFY(checked > 200);
    qInfo("%d probes agreed in the engine, the CLI and the dialog", checked);
  }

  // The three copies the issue found disagreeing now come from one declaration.
  void theOnceDriftingBoundsAreOne() {
    const ParamDecl& ensemble = emdParamTable().find("ensembleSize")->decl;
    QCOMPARE(*ensemble.max, double(1 << 20));
    std::unique_ptr<QWidget> w(makeParamEditor(ensemble, nullptr));
    QCOMPARE(qobject_cast<QSpinBox*>(w.get())->maximum(), 1 << 20);
    const ParamDecl& lrate = icaParamTable().find("learningRate")->decl;
    QVERIFY(acceptsValue(lrate, 0.0));  // 0 = automatic, everywhere
    QVERIFY(acceptsValue(lrate, 0.1));
    QVERIFY(!acceptsValue(lrate, 0.1000001));
  }
};

QTEST_MAIN(ParamContractTest)
#include "param_contract_test.moc"
