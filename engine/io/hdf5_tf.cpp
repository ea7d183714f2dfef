// Time-frequency results in HDF5, schema "modescope-tf/1" (hdf5_tf.h, docs/time-frequency.md).
#include "engine/io/hdf5_tf.h"

#include <H5Cpp.h>

#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/io/hdf5_diagnostics.h"
#include "engine/io/hdf5_params.h"
#include "engine/io/hdf5_provenance.h"
#include "engine/io/hdf5_schema.h"
#include "engine/io/hdf5_util.h"
#include "engine/tf/tf_params.h"

namespace modescope {
namespace {

constexpr const char* kTfSchemaPrefix = "modescope-tf/";
constexpr const char* kTfSchema = "modescope-tf/1";

void checkFile(const TfFile& f) {
  const TfResult& r = f.result;
  const std::size_t c = r.channelCount();
  const std::size_t expected = c * static_cast<std::size_t>(r.columns) * r.bins;
  if (c < 1 || r.values.size() != expected || f.channels.size() != c || f.renyiEntropy.size() != c)
    throw InvalidParameterError("time-frequency result", "images of inconsistent shape",
                                "channels x columns x bins with a channel table and entropies",
                                "write the result the engine returned");
  if (!f.ridges.empty() && (f.ridges.size() != c || f.ridgeModes.size() != c))
    throw InvalidParameterError("ridges", std::to_string(f.ridges.size()) + " channels",
                                std::to_string(c) + " (one list per channel)");
  if (!f.reconstruction.empty() && f.reconstruction.size() != c)
    throw InvalidParameterError("reconstruction", std::to_string(f.reconstruction.size()),
                                std::to_string(c) + " channels");
}

H5::DataSet createDataset(H5::Group& g, const std::string& name, const H5::DataType& type,
                          const std::vector<hsize_t>& dims, const std::string& description) {
  H5::DataSet ds =
      g.createDataSet(name, type, H5::DataSpace(static_cast<int>(dims.size()), dims.data()));
  h5::setAttribute(ds, "description", description);
  return ds;
}

// Writes row `c` (the first index) of a C x ... dataset from `values` (the rest of the shape).
template <class T>
void writeSlab(H5::DataSet& ds, hsize_t c, const std::vector<hsize_t>& inner, const T* values,
               const H5::DataType& memType) {
  H5::DataSpace file = ds.getSpace();
  std::vector<hsize_t> start(inner.size() + 1, 0), count{1};
  start[0] = c;
  count.insert(count.end(), inner.begin(), inner.end());
  file.selectHyperslab(H5S_SELECT_SET, count.data(), start.data());
  H5::DataSpace mem(static_cast<int>(count.size()), count.data());
  ds.write(values, memType, mem, file);
}

void writeParameters(H5::Group& root, const TfResult& r) {
  const TfParams& p = r.params;
  H5::Group g = root.createGroup("parameters");
  // Every declared field (engine/io/hdf5_params.h: order, window, window_length, sigma (0 =
  // automatic), fft_length, hop, threshold, min_frequency, max_frequency), then what ran.
  h5::writeParamAttributes(g, tfParamTable(), p);
  h5::setAttribute(g, "sigma_used", r.sigma);
  h5::setAttribute(g, "convention",
                   "F(t, w) = sum_k x(t + k) h(k) exp(-j w k) (local time); one-sided bins, DC "
                   "and Nyquist halved; x(t) = 2 / (N h(0)) Re sum_k T(t, k)");
}

// Everything but the image and what is read from it: attributes, parameters, grid, channels.
void writeHeader(H5::Group& root, const TfFile& f, TfStorage storage) {
  const TfResult& r = f.result;
  h5::setAttribute(root, kSchemaAttribute, kTfSchema);
  h5::setAttribute(root, "modescope_version", softwareVersion());
  h5::setAttribute(root, "input_file", f.inputFile);
  h5::setAttribute(root, "sample_rate", r.sampleRate);
  h5::setAttribute(root, "first_sample", r.firstSample);
  h5::setAttribute(root, "start_s", static_cast<double>(r.firstSample) / r.sampleRate);
  h5::setAttribute(root, "samples", r.samples);
  h5::setAttribute(root, "columns", static_cast<int64_t>(r.columns));
  h5::setAttribute(root, "bins", static_cast<int64_t>(r.bins));
  h5::setAttribute(root, "first_bin", static_cast<int64_t>(r.firstBin));
  h5::setAttribute(root, "window_at_zero", r.windowAtZero);
  h5::setAttribute(root, "storage", storage == TfStorage::Complex ? "complex" : "magnitude");
  writeParameters(root, r);
  std::vector<double> freqs, times;
  for (int k = 0; k < r.bins; ++k) freqs.push_back(r.frequency(k));
  for (int64_t t = 0; t < r.columns; ++t) times.push_back(r.time(t));
  h5::writeDoubles(root, "frequencies", freqs);
  h5::writeDoubles(root, "times", times);
  writeChannelTable(root, f.channels, ChannelPositions::Omit);
}

H5::CompType complexType() {
  H5::CompType type(sizeof(std::complex<float>));
  type.insertMember("r", 0, H5::PredType::NATIVE_FLOAT);
  type.insertMember("i", sizeof(float), H5::PredType::NATIVE_FLOAT);
  return type;
}

// The C x T x K image dataset ("values" or "magnitude"), not yet written.
H5::DataSet createImage(H5::Group& root, const TfResult& r, TfStorage storage) {
  const hsize_t C = r.channelCount(), T = static_cast<hsize_t>(r.columns),
                K = static_cast<hsize_t>(r.bins);
  if (storage == TfStorage::Complex)
    return createDataset(root, "values", complexType(), {C, T, K},
                         "channels x columns x bins: the squeezed STFT (order 0: the STFT), "
                         "complex float32 {r, i}");
  return createDataset(root, "magnitude", H5::PredType::IEEE_F32LE, {C, T, K},
                       "channels x columns x bins: |T| (order 0: the STFT's magnitude; its "
                       "square is the spectrogram), float32");
}

// Columns [firstColumn, firstColumn + columns) of channel c, all K bins, from `values`.
void writeColumns(H5::DataSet& ds, hsize_t c, hsize_t firstColumn, hsize_t columns, hsize_t K,
                  const void* values, const H5::DataType& memType) {
  H5::DataSpace file = ds.getSpace();
  const hsize_t start[3] = {c, firstColumn, 0}, count[3] = {1, columns, K};
  file.selectHyperslab(H5S_SELECT_SET, count, start);
  H5::DataSpace mem(3, count);
  ds.write(values, memType, mem, file);
}

void writeHeldImage(H5::Group& root, const TfFile& f, TfStorage storage, JobContext& ctx) {
  const TfResult& r = f.result;
  const hsize_t C = r.channelCount(), T = static_cast<hsize_t>(r.columns),
                K = static_cast<hsize_t>(r.bins);
  H5::DataSet ds = createImage(root, r, storage);
  std::vector<float> mag;
  for (hsize_t c = 0; c < C; ++c) {
    if (storage == TfStorage::Complex) {
      writeColumns(ds, c, 0, T, K, r.column(c, 0), complexType());
    } else {
      const std::complex<float>* v = r.column(c, 0);
      mag.resize(static_cast<std::size_t>(T * K));
      for (std::size_t i = 0; i < mag.size(); ++i) mag[i] = std::abs(v[i]);
      writeColumns(ds, c, 0, T, K, mag.data(), H5::PredType::NATIVE_FLOAT);
    }
    ctx.checkpoint();
  }
}

// What is read from the image (entropies, ridges, reconstruction), diagnostics and provenance.
void writeReadouts(H5::Group& root, const TfFile& f) {
  const TfResult& r = f.result;
  const hsize_t C = r.channelCount(), T = static_cast<hsize_t>(r.columns);
  h5::writeDoubles(root, "renyi_entropy", f.renyiEntropy);
  if (!f.ridges.empty()) {
    const hsize_t R = f.ridges.front().size();
    H5::DataSet rows = createDataset(root, "ridge_rows", H5::PredType::STD_I32LE, {C, R, T},
                                     "channels x ridges x columns: image row of each ridge");
    H5::DataSet modes =
        createDataset(root, "ridge_modes", H5::PredType::IEEE_F64LE, {C, R, T},
                      "channels x ridges x columns: the signal reconstructed from the rows "
                      "within ridge_half_width of each ridge");
    h5::setAttribute(modes, "ridge_half_width", static_cast<int64_t>(f.ridgeHalfWidth));
    for (hsize_t c = 0; c < C; ++c) {
      std::vector<int32_t> rr;
      std::vector<double> mm;
      for (hsize_t q = 0; q < R; ++q) {
        rr.insert(rr.end(), f.ridges[c][q].begin(), f.ridges[c][q].end());
        mm.insert(mm.end(), f.ridgeModes[c][q].begin(), f.ridgeModes[c][q].end());
      }
      writeSlab(rows, c, {R, T}, rr.data(), H5::PredType::NATIVE_INT32);
      writeSlab(modes, c, {R, T}, mm.data(), H5::PredType::NATIVE_DOUBLE);
    }
  }
  if (!f.reconstruction.empty()) {
    H5::DataSet ds = createDataset(root, "reconstruction", H5::PredType::IEEE_F64LE, {C, T},
                                   "channels x columns: 2 / (N h(0)) Re sum of each column");
    for (hsize_t c = 0; c < C; ++c)
      writeSlab(ds, c, {T}, f.reconstruction[c].data(), H5::PredType::NATIVE_DOUBLE);
  }
  h5::writeDiagnostics(root, r.diagnostics);
  h5::writeProvenance(root, f.provenance);
}

}  // namespace

std::size_t tfFileImageBytes(const TfResult& r, TfStorage storage) {
  return r.channelCount() * static_cast<std::size_t>(r.columns) * static_cast<std::size_t>(r.bins) *
         (storage == TfStorage::Complex ? 8 : 4);
}

void writeTfFile(const std::string& path, const TfFile& file, TfStorage storage, JobContext& ctx) {
  checkFile(file);
  writeHdf5FileAtomically(path, "the time-frequency images", [&](H5::Group& root) {
    writeHeader(root, file, storage);
    writeHeldImage(root, file, storage, ctx);
    writeReadouts(root, file);
  });
  ctx.progress(1.0, "written");
}

void writeTfFileStreamed(const std::string& path, TfFile& file, TfStorage storage,
                         const std::function<void(const TfTileSink&)>& stream, JobContext& ctx) {
  const TfResult& r = file.result;
  const std::size_t C = r.channelCount();
  if (C < 1 || file.channels.size() != C || !r.values.empty() || !file.ridges.empty() ||
      !file.reconstruction.empty())
    throw InvalidParameterError("time-frequency result", "a streamed file of inconsistent shape",
                                "a grid with a channel table, no held image and no readouts",
                                "write the result the engine returned");
  const auto K = static_cast<hsize_t>(r.bins);
  writeHdf5FileAtomically(path, "the time-frequency images", [&](H5::Group& root) {
    writeHeader(root, file, storage);
    H5::DataSet ds = createImage(root, r, storage);
    const H5::CompType complex = complexType();
    stream([&](const TfTile& t) {
      const bool asComplex = storage == TfStorage::Complex;
      if (asComplex ? t.values == nullptr : t.magnitude == nullptr)
        throw InvalidParameterError("tile", asComplex ? "magnitudes" : "complex values",
                                    asComplex ? "complex values" : "magnitudes",
                                    "stream the values the file stores");
      if (t.channel >= C || t.bins != r.bins || t.firstColumn < 0 ||
          t.firstColumn + t.columns > r.columns)
        throw InvalidParameterError("tile",
                                    "channel " + std::to_string(t.channel) + ", columns from " +
                                        std::to_string(t.firstColumn),
                                    "a tile inside the image's grid");
      if (asComplex)
        writeColumns(ds, t.channel, static_cast<hsize_t>(t.firstColumn),
                     static_cast<hsize_t>(t.columns), K, t.values, complex);
      else
        writeColumns(ds, t.channel, static_cast<hsize_t>(t.firstColumn),
                     static_cast<hsize_t>(t.columns), K, t.magnitude, H5::PredType::NATIVE_FLOAT);
    });
    if (file.renyiEntropy.size() != C)
      throw InvalidParameterError("renyi entropy", std::to_string(file.renyiEntropy.size()),
                                  std::to_string(C) + " (one per channel)");
    writeReadouts(root, file);
  });
  ctx.progress(1.0, "written");
}

bool isTfFile(const std::string& path) { return rootSchemaHasPrefix(path, kTfSchemaPrefix); }

}  // namespace modescope
