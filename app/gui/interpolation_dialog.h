// Process > Interpolate bad channels: the channels that will be replaced and the spherical-spline
// parameters (order, Legendre terms, lambda), the editors made from their declarations
// (splineInterpolationParamTable(), engine/spatial/channel_interpolation.h) with MNE's defaults,
// and the plan's own refusal (no position, too few good channels) shown under the form before
// anything runs. F1 opens docs/bad-channels.md at "Interpolation".
#pragma once

#include <QDialog>
#include <memory>
#include <vector>

#include "engine/core/recording.h"
#include "engine/spatial/channel_interpolation.h"
#include "widgets/param_editor.h"

class QLabel;
class QPushButton;

namespace modescope {

class InterpolationDialog : public QDialog {
  Q_OBJECT

 public:
  InterpolationDialog(std::shared_ptr<const Recording> recording, std::vector<std::size_t> bad,
                      QWidget* parent = nullptr);

  SplineInterpolationParams params() const;
  void setParams(const SplineInterpolationParams& p);
  QString problem() const;  // "" when Interpolate is possible
  void accept() override;   // refused (the dialog stays open) while there is a problem

 private:
  void validate();

  std::shared_ptr<const Recording> recording_;
  std::vector<std::size_t> bad_;
  ParamEditors<SplineInterpolationParams> editors_;
  QLabel* error_ = nullptr;
  QPushButton* run_ = nullptr;
  QString problem_;
};

}  // namespace modescope
