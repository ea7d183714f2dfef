#include "widgets/scalp_3d_view.h"

// Qt's OpenGL headers first: VTK's public headers used here include no GL loader of their own.
#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkConeSource.h>
#include <vtkCoordinate.h>
#include <vtkDoubleArray.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkGlyph3D.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLabeledDataMapper.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSmartPointer.h>
#include <vtkSphereSource.h>
#include <vtkStringArray.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QPainter>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <exception>
#include <numbers>
#include <set>
#include <string>

#include "engine/montage/scalp_interpolation.h"
#include "widgets/colour_map.h"
#include "widgets/head_surface.h"

namespace modescope {
namespace {

constexpr double kElectrodeRadius = 0.024;  // head units (vertex height 1): about 4 mm on a head
constexpr double kElectrodeLift = 0.012;    // centre above the surface, so most of it shows
constexpr double kLabelLift = 0.03;         // label anchor: the marker's outer side
constexpr int kHeadRings = 80;              // ~1.5 degrees per ring: smooth shading and colours
constexpr int kHeadSectors = 160;

const double kTextColour[3] = {0.12, 0.12, 0.14};
const double kHeadGrey[3] = {0.86, 0.86, 0.86};
const double kFeatureColour[3] = {0.80, 0.76,
                                  0.72};  // nose, ears and cap: neutral, not on the scale

std::string utf8(const QString& s) { return s.toUtf8().toStdString(); }

double dot(const Position3& a, const Position3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

Position3 along(const Position3& p, const Position3& n, double d) {
  return {p.x + d * n.x, p.y + d * n.y, p.z + d * n.z};
}

bool samePositions(const std::vector<Position3>& a, const std::vector<Position3>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].z != b[i].z) return false;
  }
  return true;
}

QSurfaceFormat vtkSurfaceFormat() {
  // What VTK's OpenGL2 backend needs: a 3.2 core context. Qt's own FBO holds only the blitted
  // colour, so no depth, stencil or multisampling here (VTK keeps those in its own FBOs).
  QSurfaceFormat f;
  f.setRenderableType(QSurfaceFormat::OpenGL);
  f.setVersion(3, 2);
  f.setProfile(QSurfaceFormat::CoreProfile);
  f.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  f.setRedBufferSize(8);
  f.setGreenBufferSize(8);
  f.setBlueBufferSize(8);
  f.setAlphaBufferSize(8);
  f.setDepthBufferSize(8);
  f.setStencilBufferSize(0);
  f.setSamples(0);
  return f;
}

}  // namespace

struct Scalp3dView::State {
  explicit State(Scalp3dView* v) : view(v) {}

  Scalp3dView* view;
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkRenderer> renderer;
  QSurface* surface = nullptr;
  bool glReady = false;
  bool inPaint = false;
  bool cameraSet = false;
  std::vector<unsigned long> windowTags, interactorTags;

  // Head surface, rebuilt when the cut angle changes.
  HeadMesh mesh;
  vtkSmartPointer<vtkPolyData> head;
  vtkNew<vtkPolyDataMapper> headMapper;
  vtkNew<vtkActor> headActor;
  vtkNew<vtkPolyData> cap;
  vtkNew<vtkPolyDataMapper> capMapper;
  vtkNew<vtkActor> capActor;
  vtkNew<vtkConeSource> nose;
  vtkNew<vtkPolyDataMapper> noseMapper;
  vtkNew<vtkActor> noseActor;
  vtkNew<vtkSphereSource> earSource;
  vtkNew<vtkPolyDataMapper> earMapper;
  vtkNew<vtkActor> leftEar, rightEar;
  vtkNew<vtkLookupTable> lut;

  // Electrodes and labels.
  vtkNew<vtkPolyData> electrodes;
  vtkNew<vtkSphereSource> markerSource;
  vtkNew<vtkGlyph3D> glyphs;
  vtkNew<vtkPolyDataMapper> electrodeMapper;
  vtkNew<vtkActor> electrodeActor;
  vtkNew<vtkPolyData> labelPoints;
  vtkNew<vtkLabeledDataMapper> labelMapper;
  vtkNew<vtkActor2D> labelActor;
  std::vector<Position3> electrodeDirections;
  std::vector<std::string> electrodeNames;
  std::vector<bool> labelShown;  // which labels labelPoints holds now
  bool showLabels = false;

  vtkNew<vtkScalarBarActor> colourBar;
  vtkNew<vtkTextActor> title;
  vtkNew<vtkTextActor> footer;

  // Map state.
  QStringList unmapped;
  QString message;
  double limit = 0;
  // The fit and its interpolation matrix at the mesh's vertex directions, kept while the
  // electrode set and the mesh stay: switching between maps of one recording (the components of
  // an ICA) is then one matrix-vector product.
  std::vector<Position3> splinePositions;
  std::unique_ptr<SphericalSpline> spline;
  std::unique_ptr<SphericalSpline::Evaluator> evaluator;
  double evaluatorCut = -1;

  void buildScene();
  void setHead(double cutPolarDegrees);
  void placeFeatures();
  void setElectrodes(const std::vector<Position3>& directions, std::vector<std::string> names);
  void updateLabels();
  void updateFooter();
  void colourHead(const std::vector<double>* field);
  void defaultCamera(double aspect);  // aspect = width / height

  void onWindowEvent(vtkObject*, unsigned long event, void* callData);
};

void Scalp3dView::State::buildScene() {
  renderer->GradientBackgroundOn();
  renderer->SetBackground(0.80, 0.82, 0.86);   // bottom
  renderer->SetBackground2(0.97, 0.97, 0.98);  // top
  window->AddRenderer(renderer);

  // The 2-D map's colours (ScalpMapView), so both views of one vector look alike.
  const ColourMap map = ColourMap::blueWhiteRed();
  lut->SetNumberOfTableValues(ColourMap::kTableSize);
  for (int i = 0; i < ColourMap::kTableSize; ++i) {
    const QRgb c = map.table()[static_cast<std::size_t>(i)];
    lut->SetTableValue(i, qRed(c) / 255.0, qGreen(c) / 255.0, qBlue(c) / 255.0, 1.0);
  }
  lut->SetNanColor(kHeadGrey[0], kHeadGrey[1], kHeadGrey[2], 1.0);
  lut->SetTableRange(-1, 1);

  headMapper->SetLookupTable(lut);
  headMapper->SetScalarModeToUsePointData();
  headMapper->SetColorModeToMapScalars();
  // Interpolate the value, not the colour, across a triangle: the white band stays white.
  headMapper->InterpolateScalarsBeforeMappingOn();
  headActor->SetMapper(headMapper);
  vtkProperty* hp = headActor->GetProperty();
  hp->SetInterpolationToPhong();
  // Ambient + diffuse = 1 and no specular highlight: shading only darkens a colour, never
  // washes it toward white, so the hue and saturation that carry the value survive everywhere.
  hp->SetAmbient(0.3);
  hp->SetDiffuse(0.7);
  hp->SetSpecular(0.0);
  hp->SetColor(kHeadGrey[0], kHeadGrey[1], kHeadGrey[2]);
  renderer->AddActor(headActor);

  capMapper->SetInputData(cap);
  capActor->SetMapper(capMapper);
  capActor->GetProperty()->SetColor(kFeatureColour[0], kFeatureColour[1], kFeatureColour[2]);
  renderer->AddActor(capActor);

  nose->SetResolution(32);
  nose->SetHeight(0.26);
  nose->SetRadius(0.10);
  noseMapper->SetInputConnection(nose->GetOutputPort());
  noseActor->SetMapper(noseMapper);
  noseActor->GetProperty()->SetColor(kFeatureColour[0], kFeatureColour[1], kFeatureColour[2]);
  renderer->AddActor(noseActor);

  earSource->SetRadius(1.0);
  earSource->SetThetaResolution(32);
  earSource->SetPhiResolution(24);
  earMapper->SetInputConnection(earSource->GetOutputPort());
  for (vtkActor* ear : {leftEar.GetPointer(), rightEar.GetPointer()}) {
    ear->SetMapper(earMapper);
    ear->SetScale(0.035, 0.10, 0.16);  // thin, longer up-down than front-back
    ear->GetProperty()->SetColor(kFeatureColour[0], kFeatureColour[1], kFeatureColour[2]);
    renderer->AddActor(ear);
  }

  markerSource->SetRadius(kElectrodeRadius);
  markerSource->SetThetaResolution(16);
  markerSource->SetPhiResolution(12);
  glyphs->SetSourceConnection(markerSource->GetOutputPort());
  glyphs->SetInputData(electrodes);
  glyphs->ScalingOff();
  glyphs->OrientOff();
  electrodeMapper->SetInputConnection(glyphs->GetOutputPort());
  electrodeMapper->ScalarVisibilityOff();
  electrodeActor->SetMapper(electrodeMapper);
  electrodeActor->GetProperty()->SetColor(0.08, 0.08, 0.08);
  electrodeActor->GetProperty()->SetSpecular(0.3);
  renderer->AddActor(electrodeActor);

  labelMapper->SetInputData(labelPoints);
  labelMapper->SetLabelModeToLabelFieldData();
  labelMapper->SetFieldDataName("name");
  vtkTextProperty* lp = labelMapper->GetLabelTextProperty();
  lp->SetFontSize(12);
  lp->SetColor(kTextColour);
  lp->BoldOn();
  // VTK draws the shadow in the contrasting grey (white for dark text): a thin light edge that
  // keeps the label readable over the dark ends of the scale.
  lp->ShadowOn();
  lp->SetShadowOffset(1, -1);
  lp->ItalicOff();
  // Left-justified at the electrode's centre, after four spaces: the text starts just right of
  // the marker (about 5 pixels in radius at the default zoom) instead of covering it.
  lp->SetJustificationToLeft();
  lp->SetVerticalJustificationToCentered();
  labelActor->SetMapper(labelMapper);
  labelActor->SetVisibility(false);
  renderer->AddActor2D(labelActor);

  colourBar->SetLookupTable(lut);
  colourBar->SetNumberOfLabels(5);
  colourBar->SetLabelFormat("%.3g");
  colourBar->UnconstrainedFontSizeOn();
  colourBar->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  colourBar->GetPositionCoordinate()->SetValue(0.86, 0.14);
  colourBar->SetWidth(0.12);
  colourBar->SetHeight(0.68);
  colourBar->SetBarRatio(0.3);
  for (vtkTextProperty* tp :
       {colourBar->GetTitleTextProperty(), colourBar->GetLabelTextProperty()}) {
    tp->SetColor(kTextColour);
    tp->ShadowOff();
    tp->ItalicOff();
    tp->BoldOff();
    tp->SetFontSize(13);
  }
  colourBar->SetVisibility(false);
  renderer->AddActor2D(colourBar);

  title->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  title->GetPositionCoordinate()->SetValue(0.5, 0.97);
  title->GetTextProperty()->SetJustificationToCentered();
  title->GetTextProperty()->SetVerticalJustificationToTop();
  title->GetTextProperty()->SetFontSize(17);
  title->GetTextProperty()->BoldOn();
  title->GetTextProperty()->SetColor(kTextColour);
  renderer->AddActor2D(title);

  footer->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  footer->GetPositionCoordinate()->SetValue(0.02, 0.02);
  footer->GetTextProperty()->SetFontSize(12);
  footer->GetTextProperty()->SetColor(kTextColour);
  renderer->AddActor2D(footer);

  setHead(120.0);
  colourHead(nullptr);
}

void Scalp3dView::State::setHead(double cutPolarDegrees) {
  if (head && std::abs(mesh.cutPolarDegrees - cutPolarDegrees) < 1e-9) return;
  mesh = buildHeadMesh(cutPolarDegrees, kHeadRings, kHeadSectors);

  vtkNew<vtkPoints> pts;
  pts->SetDataTypeToDouble();
  pts->SetNumberOfPoints(static_cast<vtkIdType>(mesh.points.size()));
  for (std::size_t i = 0; i < mesh.points.size(); ++i) {
    const Position3& p = mesh.points[i];
    pts->SetPoint(static_cast<vtkIdType>(i), p.x, p.y, p.z);
  }
  vtkNew<vtkCellArray> polys;
  for (const auto& t : mesh.triangles) {
    const vtkIdType ids[3] = {t[0], t[1], t[2]};
    polys->InsertNextCell(3, ids);
  }
  vtkNew<vtkPolyData> raw;
  raw->SetPoints(pts);
  raw->SetPolys(polys);
  // Smooth vertex normals for Phong shading; no splitting (the surface has no creases) and no
  // reordering (the winding is already outward).
  vtkNew<vtkPolyDataNormals> normals;
  normals->SetInputData(raw);
  normals->SplittingOff();
  normals->ConsistencyOff();
  normals->ComputePointNormalsOn();
  normals->ComputeCellNormalsOff();
  normals->Update();
  head = vtkSmartPointer<vtkPolyData>::New();
  head->DeepCopy(normals->GetOutput());
  headMapper->SetInputData(head);

  // The cap closes the cut: a fan from the rim's centre, wound to face down and out.
  vtkNew<vtkPoints> capPts;
  Position3 centre{0, 0, 0};
  for (int id : mesh.rim) {
    const Position3& p = mesh.points[static_cast<std::size_t>(id)];
    capPts->InsertNextPoint(p.x, p.y, p.z);
    centre.z += p.z / static_cast<double>(mesh.rim.size());
  }
  const vtkIdType c = capPts->InsertNextPoint(centre.x, centre.y, centre.z);
  vtkNew<vtkCellArray> capPolys;
  const auto n = static_cast<vtkIdType>(mesh.rim.size());
  for (vtkIdType j = 0; j < n; ++j) {
    const vtkIdType ids[3] = {c, (j + 1) % n, j};
    capPolys->InsertNextCell(3, ids);
  }
  cap->SetPoints(capPts);
  cap->SetPolys(capPolys);
  cap->Modified();
  placeFeatures();
}

void Scalp3dView::State::placeFeatures() {
  // The bundled montage puts the nasion (Nz) and the preauricular points (LPA, RPA) on the z = 0
  // plane. The nose starts just below the nasion and points forward and a little down; the
  // ears sit just below the preauricular points, half out of the surface.
  constexpr double kRad = std::numbers::pi / 180.0;
  const Position3 noseDir{0, std::sin(100 * kRad), std::cos(100 * kRad)};
  const Position3 noseBase = headPoint(noseDir);
  const double height = nose->GetHeight();
  const Position3 axis{0, 0.94, -0.34};  // unit: forward, 20 degrees down
  nose->SetDirection(axis.x, axis.y, axis.z);
  nose->SetCenter(noseBase.x, noseBase.y + 0.5 * height * axis.y - 0.02,
                  noseBase.z + 0.5 * height * axis.z);

  for (int side : {-1, 1}) {
    const Position3 dir{side * std::sin(100 * kRad), 0, std::cos(100 * kRad)};
    const Position3 p = along(headPoint(dir), headNormal(dir), 0.01);
    (side < 0 ? leftEar : rightEar)->SetPosition(p.x, p.y, p.z);
  }
}

void Scalp3dView::State::setElectrodes(const std::vector<Position3>& directions,
                                       std::vector<std::string> names) {
  electrodeDirections = directions;
  electrodeNames = std::move(names);
  vtkNew<vtkPoints> pts;
  for (const Position3& d : directions) {
    const Position3 p = along(headPoint(d), headNormal(d), kElectrodeLift);
    pts->InsertNextPoint(p.x, p.y, p.z);
  }
  electrodes->SetPoints(pts);
  electrodes->Modified();
  electrodeActor->SetVisibility(!directions.empty());
  labelShown.assign(directions.size(), false);
  labelShown.push_back(true);  // force a rebuild on the next updateLabels
  updateLabels();
}

void Scalp3dView::State::updateLabels() {
  if (!showLabels || electrodeDirections.empty()) {
    labelActor->SetVisibility(false);
    return;
  }
  // A label is drawn only where the head faces the camera at its electrode; the head is convex,
  // so that is exactly the set of electrodes not hidden behind it.
  double cam[3];
  renderer->GetActiveCamera()->GetPosition(cam);
  std::vector<bool> shown(electrodeDirections.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Position3 p = headPoint(electrodeDirections[i]);
    const Position3 toCamera{cam[0] - p.x, cam[1] - p.y, cam[2] - p.z};
    shown[i] = dot(headNormal(electrodeDirections[i]), toCamera) > 0;
  }
  labelActor->SetVisibility(true);
  if (shown == labelShown) return;
  labelShown = shown;
  vtkNew<vtkPoints> pts;
  vtkNew<vtkStringArray> text;
  text->SetName("name");
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (!shown[i]) continue;
    const Position3& d = electrodeDirections[i];
    const Position3 p = along(headPoint(d), headNormal(d), kLabelLift);
    pts->InsertNextPoint(p.x, p.y, p.z);
    text->InsertNextValue("    " + electrodeNames[i]);
  }
  vtkNew<vtkPolyData> fresh;
  fresh->SetPoints(pts);
  fresh->GetPointData()->AddArray(text);
  labelPoints->ShallowCopy(fresh);
  labelPoints->Modified();
}

void Scalp3dView::State::updateFooter() {
  QStringList lines;
  if (!message.isEmpty()) lines << message;
  if (!unmapped.isEmpty()) {
    QString list = unmapped.mid(0, 12).join(QStringLiteral(", "));
    if (unmapped.size() > 12) list += QStringLiteral(", \u2026 (%1 in all)").arg(unmapped.size());
    lines << QStringLiteral("not shown (no position): ") + list;
  }
  footer->SetInput(utf8(lines.join(QLatin1Char('\n'))).c_str());
  footer->SetVisibility(!lines.isEmpty());
}

void Scalp3dView::State::colourHead(const std::vector<double>* field) {
  if (!field) {
    head->GetPointData()->SetScalars(nullptr);
    headMapper->ScalarVisibilityOff();
    colourBar->SetVisibility(false);
    limit = 0;
    head->Modified();
    return;
  }
  vtkNew<vtkDoubleArray> scalars;
  scalars->SetName("field");
  scalars->SetNumberOfValues(static_cast<vtkIdType>(field->size()));
  for (std::size_t i = 0; i < field->size(); ++i) {
    scalars->SetValue(static_cast<vtkIdType>(i), (*field)[i]);
  }
  head->GetPointData()->SetScalars(scalars);
  head->Modified();
  // A zero map still needs a non-empty range; any positive half-width shows it as white.
  const double half = limit > 0 ? limit : 1.0;
  headMapper->ScalarVisibilityOn();
  headMapper->SetScalarRange(-half, half);
  lut->SetTableRange(-half, half);
  colourBar->SetVisibility(true);
}

void Scalp3dView::State::defaultCamera(double aspect) {
  // From the front-left, 30 degrees above the nasion-inion plane: the face side, the left ear
  // and the vertex all in view. The distance fits a sphere of radius kSceneRadius (the head, the
  // nose and the ears for any cut) into the narrower of the two view angles. It depends on
  // nothing but the widget's aspect ratio, so a reset always gives the same picture.
  constexpr double kSceneRadius = 1.2;
  constexpr double kViewAngle = 30.0;
  constexpr double kRad = std::numbers::pi / 180.0;
  double halfAngle = 0.5 * kViewAngle * kRad;  // vertical
  if (aspect > 0 && aspect < 1) halfAngle = std::atan(std::tan(halfAngle) * aspect);
  const double distance = kSceneRadius / std::sin(halfAngle);
  const double azimuth = 135 * kRad, elevation = 30 * kRad;  // azimuth from +x toward +y
  const Position3 focal{0, 0, 0.12};
  vtkCamera* cam = renderer->GetActiveCamera();
  cam->SetViewAngle(kViewAngle);
  cam->SetFocalPoint(focal.x, focal.y, focal.z);
  cam->SetPosition(focal.x + distance * std::cos(elevation) * std::cos(azimuth),
                   focal.y + distance * std::cos(elevation) * std::sin(azimuth),
                   focal.z + distance * std::sin(elevation));
  cam->SetViewUp(0, 0, 1);
  cam->OrthogonalizeViewUp();
  renderer->ResetCameraClippingRange();
  cameraSet = true;
}

void Scalp3dView::State::onWindowEvent(vtkObject*, unsigned long event, void* callData) {
  switch (event) {
    case vtkCommand::WindowMakeCurrentEvent: {
      // Not QOpenGLWidget::makeCurrent(): that also binds Qt's FBO, and VTK asks for the
      // context in the middle of a render while its own FBO is bound (it then attaches
      // its textures to Qt's FBO and the widget stays black).
      QOpenGLContext* ctx = view->context();
      if (ctx && surface && QOpenGLContext::currentContext() != ctx) ctx->makeCurrent(surface);
      break;
    }
    case vtkCommand::WindowIsCurrentEvent: {
      auto* current = static_cast<bool*>(callData);
      *current = view->context() && QOpenGLContext::currentContext() == view->context();
      break;
    }
    case vtkCommand::WindowFrameEvent:
    case vtkCommand::RenderEvent:
      if (!inPaint) view->update();
      break;
    default:
      break;
  }
}

Scalp3dView::Scalp3dView(QWidget* parent)
    : QOpenGLWidget(parent), state_(std::make_unique<State>(this)) {
  setFormat(vtkSurfaceFormat());
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(minimumSizeHint());

  State& s = *state_;
  s.window->SetReadyForRendering(false);  // no context yet: Render() is a no-op
  s.window->SetFrameBlitModeToNoBlit();   // paintGL blits into Qt's FBO itself
  s.window->SetMultiSamples(0);
  s.buildScene();
  s.window->SetInteractor(s.interactor);
  s.interactor->SetEnableRender(false);  // it asks for a frame through RenderEvent instead
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  s.interactor->SetInteractorStyle(style);
  s.interactor->Initialize();

  for (unsigned long e : {vtkCommand::WindowMakeCurrentEvent, vtkCommand::WindowIsCurrentEvent,
                          vtkCommand::WindowFrameEvent}) {
    s.windowTags.push_back(s.window->AddObserver(e, &s, &State::onWindowEvent));
  }
  s.interactorTags.push_back(
      s.interactor->AddObserver(vtkCommand::RenderEvent, &s, &State::onWindowEvent));
  s.updateFooter();
}

Scalp3dView::~Scalp3dView() {
  // QOpenGLWidget's own destructor destroys the context after this one has run: it must not
  // call back into releaseGl then.
  if (QOpenGLContext* ctx = context()) disconnect(ctx, nullptr, this, nullptr);
  if (state_->glReady) {
    makeCurrent();
    releaseGl();
    doneCurrent();
  }
  for (unsigned long t : state_->windowTags) state_->window->RemoveObserver(t);
  for (unsigned long t : state_->interactorTags) state_->interactor->RemoveObserver(t);
}

void Scalp3dView::setMap(const std::vector<ChannelInfo>& channels,
                         const std::vector<double>& values, const QString& title,
                         const QString& unit) {
  State& s = *state_;
  s.message.clear();
  s.unmapped.clear();
  s.title->SetInput(utf8(title).c_str());
  s.colourBar->SetTitle(utf8(unit).c_str());

  const ScalpLayout layout = scalpLayout(channels);
  for (const std::string& name : layout.unmapped) s.unmapped << QString::fromStdString(name);
  std::vector<std::string> names;
  for (std::size_t i : layout.mapped) names.push_back(channels[i].name);

  std::vector<double> mappedValues;
  if (values.size() != channels.size()) {
    s.message = QStringLiteral(
                    "Cannot draw the map: %1 values for %2 channels (one value per "
                    "channel expected).")
                    .arg(values.size())
                    .arg(channels.size());
  } else {
    for (std::size_t i : layout.mapped) {
      if (!std::isfinite(values[i])) {
        s.message = QStringLiteral(
                        "Cannot draw the map: the value of channel %1 is %2 (a finite "
                        "number expected).")
                        .arg(QString::fromStdString(channels[i].name))
                        .arg(values[i]);
        break;
      }
      mappedValues.push_back(values[i]);
    }
  }

  std::vector<double> field;
  if (s.message.isEmpty()) {
    try {
      if (!s.spline || !samePositions(s.splinePositions, layout.positions)) {
        s.spline.reset();
        s.evaluator.reset();
        s.spline = std::make_unique<SphericalSpline>(layout.positions);
        s.splinePositions = layout.positions;
      }
      s.setHead(headCutForElectrodes(layout.positions));
      if (!s.evaluator || s.evaluatorCut != s.mesh.cutPolarDegrees) {
        s.evaluator =
            std::make_unique<SphericalSpline::Evaluator>(s.spline->evaluator(s.mesh.directions));
        s.evaluatorCut = s.mesh.cutPolarDegrees;
      }
      field = s.evaluator->evaluate(mappedValues);
    } catch (const std::exception& e) {
      s.message = QStringLiteral("Cannot draw the map: ") + QString::fromUtf8(e.what());
      s.spline.reset();
      s.evaluator.reset();
      s.splinePositions.clear();
      field.clear();
    }
  }

  s.limit = 0;
  for (double v : mappedValues) s.limit = std::max(s.limit, std::abs(v));
  for (double v : field) {
    if (std::isfinite(v)) s.limit = std::max(s.limit, std::abs(v));
  }
  s.setElectrodes(layout.positions, std::move(names));
  if (s.message.isEmpty()) {
    s.colourHead(&field);
  } else {
    s.colourHead(nullptr);
  }
  s.updateFooter();
  update();
}

void Scalp3dView::clear() {
  State& s = *state_;
  s.message.clear();
  s.unmapped.clear();
  s.title->SetInput("");
  s.colourBar->SetTitle("");
  s.setElectrodes({}, {});
  s.colourHead(nullptr);
  s.updateFooter();
  update();
}

QStringList Scalp3dView::unmappedChannels() const { return state_->unmapped; }
QString Scalp3dView::message() const { return state_->message; }
double Scalp3dView::colourLimit() const { return state_->limit; }

void Scalp3dView::setShowElectrodeLabels(bool show) {
  state_->showLabels = show;
  state_->labelShown.assign(state_->electrodeDirections.size() + 1, true);  // force a rebuild
  state_->updateLabels();
  update();
}

bool Scalp3dView::showElectrodeLabels() const { return state_->showLabels; }

void Scalp3dView::resetCamera() {
  state_->defaultCamera(height() > 0 ? double(width()) / height() : 1.0);
  update();
}

void Scalp3dView::rotateCamera(double azimuthDegrees, double elevationDegrees) {
  if (!state_->cameraSet) resetCamera();
  vtkCamera* cam = state_->renderer->GetActiveCamera();
  // Azimuth about the head's own vertical through the focal point (vtkCamera::Azimuth would
  // turn about the tilted view-up and end up under the head), then elevation as VTK does it.
  const double a = azimuthDegrees * std::numbers::pi / 180.0;
  const double c = std::cos(a), sn = std::sin(a);
  double f[3], p[3], up[3];
  cam->GetFocalPoint(f);
  cam->GetPosition(p);
  cam->GetViewUp(up);
  const double dx = p[0] - f[0], dy = p[1] - f[1];
  cam->SetPosition(f[0] + c * dx - sn * dy, f[1] + sn * dx + c * dy, p[2]);
  cam->SetViewUp(c * up[0] - sn * up[1], sn * up[0] + c * up[1], up[2]);
  cam->Elevation(elevationDegrees);
  cam->OrthogonalizeViewUp();
  state_->renderer->ResetCameraClippingRange();
  update();
}

QImage Scalp3dView::grabImage() {
  if (!isValid() && !isVisible()) return {};
  return grabFramebuffer();
}

void Scalp3dView::render(QPainter& painter, const QRect& area) {
  const QImage image = grabImage();
  if (image.isNull()) return;
  painter.save();
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  painter.drawImage(area, image);
  painter.restore();
}

QSize Scalp3dView::sizeHint() const { return {560, 480}; }
QSize Scalp3dView::minimumSizeHint() const { return {200, 180}; }

void Scalp3dView::initializeGL() {
  State& s = *state_;
  if (s.glReady) releaseGl();
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &Scalp3dView::releaseGl,
          Qt::UniqueConnection);
  s.surface = context()->surface();
  s.window->SetOwnContext(false);
  // Core profiles allow only 1-pixel lines; VTK would otherwise query a compatibility limit.
  s.window->SetForceMaximumHardwareLineWidth(1);
  s.window->SetReadyForRendering(true);
  s.window->OpenGLInitContext();  // GLEW and VTK's state cache on Qt's context
  s.glReady = true;
}

void Scalp3dView::releaseGl() {
  State& s = *state_;
  if (!s.glReady) return;
  // Called with the context current (aboutToBeDestroyed, or the destructor's makeCurrent):
  // VTK frees its GL objects here.
  s.window->Finalize();
  s.window->SetReadyForRendering(false);
  s.glReady = false;
}

void Scalp3dView::resizeGL(int width, int height) {
  const qreal dpr = devicePixelRatioF();
  const int w = static_cast<int>(std::lround(width * dpr));
  const int h = static_cast<int>(std::lround(height * dpr));
  state_->interactor->UpdateSize(w, h);
  state_->window->SetSize(w, h);
  // The first size known: place the default camera for it (later resizes keep the user's view).
  if (!state_->cameraSet && height > 0) state_->defaultCamera(double(width) / height);
}

void Scalp3dView::paintGL() {
  State& s = *state_;
  if (!s.glReady) return;
  s.updateLabels();
  s.inPaint = true;
  s.window->Render();  // into VTK's own framebuffer
  s.inPaint = false;

  // Render() may have made the context current again (which unbinds Qt's FBO): bind it back.
  makeCurrent();
  QOpenGLExtraFunctions* f = context()->extraFunctions();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  const GLenum drawBuffer = GL_COLOR_ATTACHMENT0;
  f->glDrawBuffers(1, &drawBuffer);
  const bool scissor = f->glIsEnabled(GL_SCISSOR_TEST);
  if (scissor) {
    s.window->GetState()->vtkglDisable(GL_SCISSOR_TEST);
    f->glDisable(GL_SCISSOR_TEST);
  }
  const int* size = s.window->GetRenderFramebuffer()->GetLastSize();
  const qreal dpr = devicePixelRatioF();
  s.window->BlitDisplayFramebuffer(
      0, 0, 0, size[0], size[1], 0, 0, static_cast<int>(std::lround(width() * dpr)),
      static_cast<int>(std::lround(height() * dpr)), GL_COLOR_BUFFER_BIT, GL_LINEAR);
  if (scissor) {
    s.window->GetState()->vtkglEnable(GL_SCISSOR_TEST);
    f->glEnable(GL_SCISSOR_TEST);
  }
  // Opaque alpha: otherwise the compositor shows the widget translucent where VTK wrote alpha
  // below 1 (Mesa does).
  f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  f->glClearColor(0, 0, 0, 1);
  f->glClear(GL_COLOR_BUFFER_BIT);
  f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
}

namespace {

// Qt -> VTK event information: position with y flipped (VTK counts from the bottom), device
// pixels, modifiers.
void setEventInformation(vtkGenericRenderWindowInteractor* iren, const QPointF& pos, qreal dpr,
                         Qt::KeyboardModifiers mods, int repeat = 0) {
  iren->SetEventInformationFlipY(
      static_cast<int>(std::lround(pos.x() * dpr)), static_cast<int>(std::lround(pos.y() * dpr)),
      (mods & Qt::ControlModifier) ? 1 : 0, (mods & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
  iren->SetAltKey((mods & Qt::AltModifier) ? 1 : 0);
}

unsigned long pressEvent(Qt::MouseButton b) {
  switch (b) {
    case Qt::LeftButton:
      return vtkCommand::LeftButtonPressEvent;
    case Qt::MiddleButton:
      return vtkCommand::MiddleButtonPressEvent;
    case Qt::RightButton:
      return vtkCommand::RightButtonPressEvent;
    default:
      return vtkCommand::NoEvent;
  }
}

unsigned long releaseEvent(Qt::MouseButton b) {
  switch (b) {
    case Qt::LeftButton:
      return vtkCommand::LeftButtonReleaseEvent;
    case Qt::MiddleButton:
      return vtkCommand::MiddleButtonReleaseEvent;
    case Qt::RightButton:
      return vtkCommand::RightButtonReleaseEvent;
    default:
      return vtkCommand::NoEvent;
  }
}

}  // namespace

void Scalp3dView::mousePressEvent(QMouseEvent* event) {
  const unsigned long e = pressEvent(event->button());
  if (e == vtkCommand::NoEvent) return QOpenGLWidget::mousePressEvent(event);
  setEventInformation(state_->interactor, event->position(), devicePixelRatioF(),
                      event->modifiers());
  state_->interactor->InvokeEvent(e, nullptr);
  event->accept();
}

void Scalp3dView::mouseReleaseEvent(QMouseEvent* event) {
  const unsigned long e = releaseEvent(event->button());
  if (e == vtkCommand::NoEvent) return QOpenGLWidget::mouseReleaseEvent(event);
  setEventInformation(state_->interactor, event->position(), devicePixelRatioF(),
                      event->modifiers());
  state_->interactor->InvokeEvent(e, nullptr);
  event->accept();
}

void Scalp3dView::mouseMoveEvent(QMouseEvent* event) {
  setEventInformation(state_->interactor, event->position(), devicePixelRatioF(),
                      event->modifiers());
  state_->interactor->InvokeEvent(vtkCommand::MouseMoveEvent, nullptr);
  event->accept();
}

void Scalp3dView::mouseDoubleClickEvent(QMouseEvent* event) {
  // VTK's trackball style does nothing useful on a double click; here it restores the view.
  if (event->button() == Qt::LeftButton) {
    resetCamera();
    event->accept();
    return;
  }
  QOpenGLWidget::mouseDoubleClickEvent(event);
}

void Scalp3dView::wheelEvent(QWheelEvent* event) {
  const int dy = event->angleDelta().y();
  if (dy == 0) return QOpenGLWidget::wheelEvent(event);
  setEventInformation(state_->interactor, event->position(), devicePixelRatioF(),
                      event->modifiers());
  state_->interactor->InvokeEvent(
      dy > 0 ? vtkCommand::MouseWheelForwardEvent : vtkCommand::MouseWheelBackwardEvent, nullptr);
  event->accept();
}

void Scalp3dView::keyPressEvent(QKeyEvent* event) {
  // Keys are not forwarded to VTK: its styles quit ('q', 'e'), switch to wireframe ('w') or
  // stereo ('3'), none of which belongs in an embedded view.
  if (event->key() == Qt::Key_R || event->key() == Qt::Key_Home) {
    resetCamera();
    event->accept();
    return;
  }
  QOpenGLWidget::keyPressEvent(event);
}

void Scalp3dView::enterEvent(QEnterEvent* event) {
  state_->interactor->InvokeEvent(vtkCommand::EnterEvent, nullptr);
  QOpenGLWidget::enterEvent(event);
}

void Scalp3dView::leaveEvent(QEvent* event) {
  state_->interactor->InvokeEvent(vtkCommand::LeaveEvent, nullptr);
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace modescope
