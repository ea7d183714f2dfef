// Annotation tables (engine/io/annotation_files.h): CSV and BIDS events.tsv both ways, and the
// errors a damaged table gives.
#include "engine/io/annotation_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace modescope {
namespace {

const std::vector<Annotation> kMarks = {
    {1.25, 0.0, "T1"}, {2.5, 1.5, "eyes, closed"}, {3600.0001234, 0.25, "say \"ah\""}};

TEST(AnnotationFiles, CsvRoundTripKeepsCommasQuotesAndMicroseconds) {
  const std::string text = formatAnnotationTable(kMarks, AnnotationTableFormat::Csv);
  EXPECT_EQ(text.substr(0, text.find('\n')), "onset,duration,description");
  EXPECT_NE(text.find("\"eyes, closed\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"say \"\"ah\"\"\""), std::string::npos) << text;
  const auto back = parseAnnotationTable(text, AnnotationTableFormat::Csv, "t.csv");
  ASSERT_EQ(back.size(), kMarks.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_DOUBLE_EQ(back[i].onset, kMarks[i].onset);
    EXPECT_DOUBLE_EQ(back[i].duration, kMarks[i].duration);
    EXPECT_EQ(back[i].text, kMarks[i].text);
  }
}

TEST(AnnotationFiles, BidsEventsWithSamplesAndNa) {
  const std::string text = formatAnnotationTable(kMarks, AnnotationTableFormat::BidsEvents, 160);
  EXPECT_EQ(text.substr(0, text.find('\n')), "onset\tduration\ttrial_type\tsample");
  EXPECT_NE(text.find("1.25\t0\tT1\t200\n"), std::string::npos) << text;
  const std::string bids =
      "onset\tduration\ttrial_type\tresponse_time\n"
      "5.0\tn/a\tgo\t0.4\n"
      "1.5\t0.5\tstop\tn/a\n";
  const auto back = parseAnnotationTable(bids, AnnotationTableFormat::BidsEvents, "e.tsv");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].text, "stop");  // sorted by onset
  EXPECT_DOUBLE_EQ(back[1].duration, 0.0);
}

TEST(AnnotationFiles, ErrorsNameTheLineAndColumn) {
  try {
    parseAnnotationTable("onset,duration,description\n1,0,a\nx,0,b\n", AnnotationTableFormat::Csv,
                         "bad.csv");
    FAIL();
  } catch (const InvalidInputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("line 3"), std::string::npos) << m;
    EXPECT_NE(m.find("onset"), std::string::npos) << m;
  }
  EXPECT_THROW(parseAnnotationTable("start,end\n1,2\n", AnnotationTableFormat::Csv, "x.csv"),
               InvalidInputError);
  EXPECT_THROW(parseAnnotationTable("onset,duration,description\n1,-2,a\n",
                                    AnnotationTableFormat::Csv, "x.csv"),
               InvalidInputError);
  EXPECT_THROW(parseAnnotationTable("onset,duration,description\n1,2,a,b\n",
                                    AnnotationTableFormat::Csv, "x.csv"),
               InvalidInputError);
  EXPECT_THROW(annotationFormatForPath("marks.txt"), InvalidParameterError);
}

TEST(AnnotationFiles, FilesAreWrittenWholeAndReadBack) {
  const auto dir = std::filesystem::temp_directory_path() / "modescope_annotation_files_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "events.tsv").string();
  writeAnnotationFile(path, kMarks, 0.0);
  const auto back = readAnnotationFile(path);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1].text, "eyes, closed");
  const auto merged = mergeAnnotations({{2.5, 0, "file"}}, back);
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[1].text, "file");  // at equal onsets the base's first
  EXPECT_THROW(readAnnotationFile((dir / "missing.csv").string()), InvalidInputError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace modescope
