// The parameter attributes of result files come from the declarations (engine/io/hdf5_params.h):
// every declared field of every method's table is written once, under a name no other field of
// the table uses, with the type of its kind and the struct's value; the names are the ones the
// modescope-*/1 readers and docs/hdf5-schema.md have always used; and readers read them back from
// the same declarations.
#include "engine/io/hdf5_params.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "engine/ar/ar_params.h"
#include "engine/core/error.h"
#include "engine/emd/emd_params.h"
#include "engine/entropy/entropy_params.h"
#include "engine/hht/hht.h"
#include "engine/ica/ica_params.h"
#include "engine/io/hdf5_util.h"

namespace modescope {
namespace {

namespace fs = std::filesystem;

class Hdf5ParamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("modescope_hdf5_params_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `p` through `table` into a fresh file and checks every attribute against the value.
  template <class P>
  void checkRoundTrip(const ParamTable<P>& table, const P& p, const std::string& name) {
    std::lock_guard lock(h5::hdf5Mutex());
    h5::initialiseHdf5();
    const std::string path = (dir_ / (name + ".h5")).string();
    {
      H5::H5File file(path, H5F_ACC_TRUNC);
      H5::Group g = file.createGroup("parameters");
      h5::writeParamAttributes(g, table, p);
    }
    H5::H5File file(path, H5F_ACC_RDONLY);
    H5::Group g = file.openGroup("parameters");
    std::set<std::string> names;
    for (const auto& [decl, value] : table.values(p)) {
      const std::string attr = fileAttributeName(*decl);
      EXPECT_TRUE(names.insert(attr).second) << name << ": two fields stored as " << attr;
      ASSERT_TRUE(g.attrExists(attr)) << name << "." << decl->key << " as " << attr;
      H5::Attribute a = g.openAttribute(attr);
      switch (decl->kind) {
        case ParamKind::Flag:
        case ParamKind::Integer: {
          ASSERT_EQ(a.getTypeClass(), H5T_INTEGER) << attr;
          int64_t v = 0;
          a.read(H5::PredType::NATIVE_INT64, &v);
          const int64_t want = decl->kind == ParamKind::Flag ? (std::get<bool>(value) ? 1 : 0)
                                                             : std::get<int64_t>(value);
          EXPECT_EQ(v, want) << attr;
          break;
        }
        case ParamKind::Seed: {
          ASSERT_EQ(a.getTypeClass(), H5T_INTEGER) << attr;
          EXPECT_EQ(a.getIntType().getSign(), H5T_SGN_NONE) << attr;
          uint64_t v = 0;
          a.read(H5::PredType::NATIVE_UINT64, &v);
          EXPECT_EQ(v, std::get<uint64_t>(value)) << attr;
          break;
        }
        case ParamKind::Real: {
          ASSERT_EQ(a.getTypeClass(), H5T_FLOAT) << attr;
          double v = 0;
          a.read(H5::PredType::NATIVE_DOUBLE, &v);
          EXPECT_EQ(v, std::get<double>(value)) << attr;
          break;
        }
        case ParamKind::Choice: {
          ASSERT_EQ(a.getTypeClass(), H5T_STRING) << attr;
          std::string v;
          a.read(a.getStrType(), v);
          v = v.c_str();  // fixed-length strings are null-padded
          EXPECT_EQ(v, std::get<std::string>(value)) << attr;
          break;
        }
      }
    }
    EXPECT_EQ(static_cast<std::size_t>(g.getNumAttrs()), names.size()) << name;
  }

  // Writes `p` through `table`, lets `edit` change the group, then reads it over `defaults`
  // (h5::readParamAttributes).
  template <class P>
  P writeThenRead(const ParamTable<P>& table, const P& p, const P& defaults,
                  const std::function<void(H5::Group&)>& edit = {}) {
    std::lock_guard lock(h5::hdf5Mutex());
    h5::initialiseHdf5();
    path_ = (dir_ / "params.h5").string();
    {
      H5::H5File file(path_, H5F_ACC_TRUNC);
      H5::Group g = file.createGroup("parameters");
      h5::writeParamAttributes(g, table, p);
      if (edit) edit(g);
    }
    H5::H5File file(path_, H5F_ACC_RDONLY);
    H5::Group g = file.openGroup("parameters");
    return h5::readParamAttributes(h5::Reader(path_), g, table, defaults);
  }

  // The message of the refusal, which must name the file.
  template <class P>
  std::string refusal(const ParamTable<P>& table, const P& p,
                      const std::function<void(H5::Group&)>& edit) {
    try {
      writeThenRead(table, p, P{}, edit);
    } catch (const InvalidInputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path_), std::string::npos) << m;
      return m;
    }
    ADD_FAILURE() << "accepted";
    return "";
  }

  template <class P>
  static void expectSame(const ParamTable<P>& table, const P& a, const P& b,
                         const std::string& what) {
    const auto va = table.values(a), vb = table.values(b);
    ASSERT_EQ(va.size(), vb.size());
    for (std::size_t i = 0; i < va.size(); ++i)
      EXPECT_EQ(va[i].second, vb[i].second) << what << ": " << va[i].first->key;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(Hdf5ParamsTest, EveryEmdFieldIsWrittenOnceWithItsType) {
  EmdParams p;
  p.method = EmdMethod::Iceemdan;
  p.ensembleSize = 123;
  p.noiseStd = 0.25;
  p.seed = 0xfedcba9876543210ull;
  p.pairedNoise = true;
  checkRoundTrip(emdParamTable(), p, "emd");
}

TEST_F(Hdf5ParamsTest, EveryHhtIcaArAndEntropyFieldIsWrittenOnceWithItsType) {
  HhtParams hht;
  hht.fMax = 40;
  hht.logFrequency = true;
  hht.fMin = 1;
  checkRoundTrip(hhtParamTable(), hht, "hht");
  IcaParams ica;
  ica.seed = 7;
  ica.learningRate = 0.001;
  checkRoundTrip(icaParamTable(), ica, "ica");
  checkRoundTrip(burgArParamTable(), BurgArParams{}, "ar");
  checkRoundTrip(entropyParamTable(), EntropyParams{}, "entropy");
}

// The names readers of modescope-emd/1, -ica/1, -ar/1 and -entropy/1 files look for
// (engine/io/hdf5_*.cpp readers, docs/hdf5-schema.md, docs/ar.md, docs/entropy.md).
TEST_F(Hdf5ParamsTest, AttributeNamesAreTheSchemasNames) {
  auto namesOf = [](const auto& table) {
    std::set<std::string> out;
    for (const auto& f : table.fields()) out.insert(fileAttributeName(f.decl));
    return out;
  };
  const auto emd = namesOf(emdParamTable());
  for (const char* n : {"method", "stop_rule", "stop_threshold1", "stop_threshold2",
                        "stop_tolerance", "stop_max_sifts", "stop_fixed_sifts", "stop_s_number",
                        "noise_stop_rule", "noise_stop_max_sifts", "max_imfs", "ensemble_size",
                        "noise_std", "seed", "noise_scaling", "paired_noise", "gpu_precision"})
    EXPECT_TRUE(emd.count(n)) << "emd: " << n;
  const auto hht = namesOf(hhtParamTable());
  for (const char* n : {"quantity", "f_min_hz", "f_max_hz", "frequency_bins", "log_frequency",
                        "time_bins", "edge_s", "keep_instantaneous"})
    EXPECT_TRUE(hht.count(n)) << "hht: " << n;
  const auto ica = namesOf(icaParamTable());
  for (const char* n :
       {"extended", "rules", "sphering", "bias", "learning_rate", "block_size", "anneal_deg",
        "anneal_factor", "stop_tolerance", "max_steps", "pca_rank", "rank_tolerance", "seed",
        "ext_blocks", "ext_sub_gaussian", "ext_centred_kurtosis", "max_small_angle_steps"})
    EXPECT_TRUE(ica.count(n)) << "ica: " << n;
  const auto ar = namesOf(burgArParamTable());
  for (const char* n :
       {"window_requested", "window_requested_unit", "step_requested", "step_requested_unit",
        "order", "detrend", "bin_grid", "output", "first_bin_center_hz", "last_bin_center_hz",
        "bin_width_hz", "evaluations_per_bin"})
    EXPECT_TRUE(ar.count(n)) << "ar: " << n;
  const auto entropy = namesOf(entropyParamTable());
  for (const char* n : {"measure", "m", "r", "sd", "epoch_samples_requested", "bias"})
    EXPECT_TRUE(entropy.count(n)) << "entropy: " << n;
}

// Reading back (h5::readParamAttributes): what was written comes back for every table, an
// attribute an older file lacks takes the declared default, and a wrong type, an unknown choice
// or a value outside the declared range of a field that applies is refused naming the file, the
// attribute and the value.
TEST_F(Hdf5ParamsTest, WhatWasWrittenComesBackForEveryTable) {
  EmdParams emd;
  emd.method = EmdMethod::Eemd;
  emd.ensembleSize = 321;
  emd.noiseStd = 0.3;
  emd.seed = 0xfedcba9876543210ull;
  emd.noiseScaling = NoiseScaling::Constant;
  emd.stop.kind = StopRuleKind::FixedSifts;
  emd.stop.fixedSifts = 12;
  expectSame(emdParamTable(), emd, writeThenRead(emdParamTable(), emd, EmdParams{}), "emd");
  HhtParams hht;
  hht.fMin = 2;
  hht.fMax = 45;
  hht.logFrequency = true;
  expectSame(hhtParamTable(), hht, writeThenRead(hhtParamTable(), hht, HhtParams{}), "hht");
  IcaParams ica;
  ica.seed = 11;
  ica.learningRate = 0.002;
  ica.extended = false;
  expectSame(icaParamTable(), ica, writeThenRead(icaParamTable(), ica, IcaParams{}), "ica");
  BurgArParams ar;
  ar.order = 24;
  ar.window = {256, ArLengthUnit::Samples};
  expectSame(burgArParamTable(), ar, writeThenRead(burgArParamTable(), ar, BurgArParams{}), "ar");
  EntropyParams entropy;
  entropy.m = 3;
  entropy.r = 0.15;
  expectSame(entropyParamTable(), entropy,
             writeThenRead(entropyParamTable(), entropy, EntropyParams{}), "entropy");
}

TEST_F(Hdf5ParamsTest, AnAttributeAnOlderFileLacksTakesTheDefault) {
  EmdParams written;
  written.ensembleSize = 77;
  written.gpuPrecision = GpuPrecision::Float64;
  EmdParams defaults;
  defaults.gpuPrecision = GpuPrecision::Float32;
  const EmdParams back = writeThenRead(emdParamTable(), written, defaults,
                                       [](H5::Group& g) { g.removeAttr("gpu_precision"); });
  EXPECT_EQ(back.gpuPrecision, GpuPrecision::Float32);
  EXPECT_EQ(back.ensembleSize, 77);  // the rest as written
}

TEST_F(Hdf5ParamsTest, AWrongTypeIsRefusedNamingTheAttribute) {
  const std::string m = refusal(emdParamTable(), EmdParams{}, [](H5::Group& g) {
    g.removeAttr("noise_std");
    h5::setAttribute(g, "noise_std", std::string("0.2"));
  });
  EXPECT_NE(m.find("noise_std"), std::string::npos) << m;
  EXPECT_NE(m.find("string"), std::string::npos) << m;
}

TEST_F(Hdf5ParamsTest, AnUnknownChoiceIsRefusedWithTheDeclaredChoices) {
  const std::string m = refusal(icaParamTable(), IcaParams{}, [](H5::Group& g) {
    g.removeAttr("rules");
    h5::setAttribute(g, "rules", std::string("fastica"));
  });
  EXPECT_NE(m.find("rules"), std::string::npos) << m;
  EXPECT_NE(m.find("'fastica'"), std::string::npos) << m;
  EXPECT_NE(m.find(expectedText(icaParamTable().find("rules")->decl)), std::string::npos) << m;
}

TEST_F(Hdf5ParamsTest, AValueOutsideItsDeclaredRangeIsRefusedWhereItApplies) {
  EmdParams iceemdan;
  iceemdan.method = EmdMethod::Iceemdan;
  auto zeroEnsemble = [](H5::Group& g) {
    g.removeAttr("ensemble_size");
    h5::setAttribute(g, "ensemble_size", int64_t{0});
  };
  const std::string m = refusal(emdParamTable(), iceemdan, zeroEnsemble);
  EXPECT_NE(m.find("ensemble_size"), std::string::npos) << m;
  EXPECT_NE(m.find("0 members"), std::string::npos) << m;
  EXPECT_NE(m.find(expectedText(emdParamTable().find("ensembleSize")->decl)), std::string::npos)
      << m;
  // Plain EMD has no ensemble: the method ignores the field, and so does the reader.
  EmdParams plain;
  plain.method = EmdMethod::Emd;
  EXPECT_EQ(writeThenRead(emdParamTable(), plain, EmdParams{}, zeroEnsemble).method,
            EmdMethod::Emd);
}

}  // namespace
}  // namespace modescope
