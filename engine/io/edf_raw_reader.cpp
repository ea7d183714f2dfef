#include "engine/io/edf_raw_reader.h"

#include <cmath>
#include <fstream>
#include <vector>

#include "engine/core/error.h"

namespace modescope {

TriggerCodeReader edfRawTriggerReader(const std::string& path, const EdfHeader& h,
                                      std::size_t signal) {
  const int bps = h.isBdf ? 3 : 2;
  long long signalOffset = 0;
  for (std::size_t i = 0; i < signal; ++i) signalOffset += h.signals[i].samplesPerRecord * bps;
  const EdfSignalHeader s = h.signals.at(signal);
  const long long spr = s.samplesPerRecord;
  const long long headerBytes = h.headerBytes, recordBytes = h.recordBytes;
  const long long total = spr * h.recordsInFile;
  const bool isBdf = h.isBdf;
  const double digSpan = static_cast<double>(s.digitalMax - s.digitalMin);
  const double physSpan = s.physicalMax - s.physicalMin;
  auto file = std::make_shared<std::ifstream>(path, std::ios::binary);
  return [=](int64_t first, int64_t count, int64_t* out) {
    if (first < 0 || count < 0 || first + count > total) {
      throw std::out_of_range("edfRawTriggerReader outside the signal");
    }
    std::vector<unsigned char> buf;
    int64_t done = 0;
    while (done < count) {
      const long long sample = first + done;
      const long long record = sample / spr, within = sample % spr;
      const long long n = std::min<long long>(spr - within, count - done);
      buf.resize(static_cast<std::size_t>(n * bps));
      file->clear();
      file->seekg(headerBytes + record * recordBytes + signalOffset + within * bps);
      file->read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
      if (file->gcount() != static_cast<std::streamsize>(buf.size())) {
        throw InvalidInputError(path, "data record " + std::to_string(record + 1), "a short read",
                                std::to_string(recordBytes) + " bytes per record",
                                "The file may have changed since it was opened");
      }
      for (long long i = 0; i < n; ++i) {
        const unsigned char* p = buf.data() + i * bps;
        int64_t v;
        if (isBdf) {
          v = static_cast<int64_t>(p[0] | (p[1] << 8) | (p[2] << 16));
          if (v & 0x800000) v -= 0x1000000;
        } else {
          v = static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
        }
        if (!isBdf && digSpan != 0) {
          const double phys =
              (static_cast<double>(v) - s.digitalMin) * physSpan / digSpan + s.physicalMin;
          v = std::isfinite(phys) ? static_cast<int64_t>(std::llround(phys)) : 0;
        }
        out[done + i] = v;
      }
      done += n;
    }
  };
}

}  // namespace modescope
