// The base of the tests' ComputeBackend doubles: every method fails loudly unless the double
// overrides it, so a test that records or fakes one method is not forced to restate the whole
// interface, and a call the test did not expect names itself instead of passing silently.
#pragma once

#include <stdexcept>
#include <string>

#include "engine/compute/backend.h"
#include "engine/epochs/epoch_average.h"

namespace modescope::test_support {

class UnexpectedCallBackend : public ComputeBackend {
 public:
  BackendInfo info() const override { return {}; }
  void applyReference(SignalBlock&, const ReferencePlan&, JobContext&) override {
    unexpected("applyReference");
  }
  void applyFir(SignalBlock&, const FirKernel&, JobContext&) override { unexpected("applyFir"); }
  EmdResult decompose(const SignalBlock&, const EmdParams&, JobContext&) override {
    unexpected("decompose");
  }
  MemdResult memd(const SignalBlock&, const MemdParams&, JobContext&) override {
    unexpected("memd");
  }
  HhtResult hilbertHuang(const EmdResult&, const HhtParams&, JobContext&) override {
    unexpected("hilbertHuang");
  }
  IcaResult infomax(const SignalBlock&, const IcaParams&, JobContext&) override {
    unexpected("infomax");
  }
  SignalBlock spatialFilter(const SpatialFilter&, const SignalBlock&, JobContext&) override {
    unexpected("spatialFilter");
  }
  ArSpectrumResult arSpectra(const SignalBlock&, const BurgArParams&, JobContext&) override {
    unexpected("arSpectra");
  }
  std::unique_ptr<ArStream> openArStream(const ArStreamConfig&) override {
    unexpected("openArStream");
  }
  EntropyMatrixResult entropyMatrices(const SignalBlock&, const EntropyParams&,
                                      JobContext&) override {
    unexpected("entropyMatrices");
  }
  TfResult timeFrequency(const SignalBlock&, const TfParams&, JobContext&) override {
    unexpected("timeFrequency");
  }
  TfResult timeFrequencyTiles(const SignalBlock&, const TfParams&, TfTileValues, const TfTileSink&,
                              JobContext&) override {
    unexpected("timeFrequencyTiles");
  }
  EpochAverages averageEpochs(const EpochSet&, JobContext&) override {
    unexpected("averageEpochs");
  }

 protected:
  [[noreturn]] static void unexpected(const std::string& method) {
    throw std::logic_error("test backend: " + method +
                           "() was called but this test does not expect it");
  }
};

}  // namespace modescope::test_support
