// The filter and re-reference parameters declared once: the text syntax (--filter, pipeline
// strings) and its help are made from the declarations, and a filter the text cannot say (a
// transition width, a notch without harmonics) travels through a pipeline file as an object of
// the same keys, read with the same ranges.
#include "engine/dsp/filter_param_table.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "app/core/pipeline.h"
#include "engine/core/error.h"
#include "engine/core/json_value.h"

using namespace modescope;

namespace {

Pipeline readText(const std::string& text) {
  return readPipeline(parseJson(text, "p.json"), "p.json");
}

std::string errorOf(const std::string& text) {
  try {
    readText(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FilterParamTable, EveryDeclaredKindAndSpellingParses) {
  const ParamDecl& kind = filterParamTable().find("kind")->decl;
  ASSERT_EQ(kind.choices.size(), filterKindNames().size());
  for (const auto& [value, name] : filterKindNames()) {
    const ParamChoice* c = findChoice(kind, name);
    ASSERT_NE(c, nullptr) << name;
    for (const std::string& spelling : c->aliases) {
      // Each kind's text with its declared defaults, respelled with the alias.
      FilterSpec s;
      s.kind = value;
      const std::string text = *filterSpecString(s);
      const FilterSpec back = parseFilterSpec(spelling + text.substr(text.find(':')));
      EXPECT_EQ(back.kind, value) << spelling;
    }
    // The help lists each kind's syntax and its source.
    EXPECT_NE(filterSyntaxHelp().find(name + ":"), std::string::npos) << name;
    EXPECT_NE(filterSyntaxHelp().find(c->help), std::string::npos) << name;
  }
  for (const ParamChoice& c : referenceParamTable().find("kind")->decl.choices)
    EXPECT_NE(referenceSyntaxText().find(c.name), std::string::npos) << c.name;
}

TEST(FilterParamTable, TheTextRefusesWhatTheDeclarationRefuses) {
  const ParamDecl& low = filterParamTable().find("lowHz")->decl;
  ASSERT_TRUE(low.min.has_value());
  EXPECT_FALSE(low.minInclusive);
  for (const char* text : {"highpass:0", "highpass:-1", "bandpass:0-40"}) {
    try {
      parseFilterSpec(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const InvalidParameterError& e) {
      EXPECT_EQ(e.parameter(), "filter");
      // The range the message gives is the declaration's.
      EXPECT_NE(e.expected().find(expectedText(low)), std::string::npos) << e.what();
    }
  }
  // The cross-field rule of the table (a band-pass's edges in order) holds for the text too.
  FilterSpec reversed;
  reversed.lowHz = 40;
  reversed.highHz = 1;
  EXPECT_THROW(filterParamTable().validate(reversed), InvalidParameterError);
  EXPECT_THROW(parseFilterSpec("bandpass:40-1"), InvalidParameterError);
  EXPECT_THROW(parseReferenceSpec("average:Cz"), InvalidParameterError);
}

TEST(FilterParamTable, WhatTheTextCannotSayTravelsAsAnObjectOfTheDeclaredKeys) {
  FilterSpec wide;
  wide.kind = FilterKind::HighPass;
  wide.lowHz = 4;
  wide.transitionHz = 2;
  FilterSpec bareNotch;
  bareNotch.kind = FilterKind::Notch;
  bareNotch.notchHz = 60;
  bareNotch.notchHarmonics = false;
  EXPECT_FALSE(filterSpecString(wide).has_value());
  EXPECT_FALSE(filterSpecString(bareNotch).has_value());

  PipelineFilterStep step;
  step.spec.filters = {wide, parseFilterSpec("lowpass:40"), bareNotch};
  Pipeline p;
  p.steps.push_back(step);
  const std::string json = writePipelineJson(p);
  EXPECT_NE(json.find("\"transitionHz\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"notchHarmonics\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"lowpass:40\""), std::string::npos) << json;  // the text where it can
  const Pipeline back = readText(json);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_TRUE(std::get<PipelineFilterStep>(back.steps[0]) == step) << json;
}

TEST(FilterParamTable, AnObjectItemIsCheckedByTheDeclarations) {
  const std::string head = R"({"modescope_pipeline": 1, "steps": [{"step": "filter", "filters": [)";
  const std::string tail = "]}]}";
  std::string e = errorOf(head + R"({"kind": "highpass", "lowHz": 0})" + tail);
  EXPECT_NE(e.find("filters, item 1.lowHz"), std::string::npos) << e;
  EXPECT_NE(e.find(expectedText(filterParamTable().find("lowHz")->decl)), std::string::npos) << e;
  e = errorOf(head + R"({"kind": "bandpass", "lowHz": 40, "highHz": 1})" + tail);
  EXPECT_NE(e.find("a low edge below the high edge"), std::string::npos) << e;
  e = errorOf(head + R"({"kind": "wiener"})" + tail);
  EXPECT_NE(e.find("filters, item 1.kind"), std::string::npos) << e;
  e = errorOf(head + R"({"kind": "notch", "order": 3})" + tail);
  EXPECT_NE(e.find("filters, item 1.order"), std::string::npos) << e;
}
