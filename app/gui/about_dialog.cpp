#include "app/gui/about_dialog.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "app/core/gpu_backend.h"
#include "engine/core/provenance.h"
#include "engine/io/recording_io.h"
#include "resources/embedded_resources.h"

namespace modescope {

QString AboutDialog::html(const QString& backendDescription) {
  QString formats;
  for (const auto& f : supportedInputFormats()) {
    formats += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(f).toHtmlEscaped());
  }
  const QString cuda =
      gpuFactory() ? tr("with the CUDA backend") : tr("without a CUDA backend (CPU only)");
  return tr("<h2>%1</h2>"
            "<p>A workbench for EEG and MEG recordings: browse, preprocess and decompose signals "
            "on the GPU or the CPU.</p>"
            "<p>Built %2 against Qt %3 (running on Qt %4).<br>Compute backend: %5</p>"
            "<h3>Input formats</h3><ul>%6</ul>"
            "<h3>Third-party components and licences</h3><ul>"
            "<li>Qt 6: LGPL-3.0</li>"
            "<li>EDFlib (EDF/BDF reading and writing): BSD-3-Clause</li>"
            "<li>BioSig (tolerant reader, run as a separate helper process): GPL-3.0</li>"
            "<li>HDF5: BSD-style HDF5 licence</li>"
            "<li>FFTW 3: GPL-2.0-or-later</li>"
            "<li>Electrode positions (eeg_positions): MIT</li>"
            "</ul>"
            "<h3>Demo recording</h3><p>%7</p>")
      .arg(QString::fromStdString(softwareVersion()).toHtmlEscaped(), cuda,
           QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()),
           backendDescription.toHtmlEscaped(), formats,
           QString::fromLatin1(kDemoAttribution).toHtmlEscaped());
}

AboutDialog::AboutDialog(const QString& backendDescription, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("About ModeScope"));
  auto* text = new QTextBrowser(this);
  text->setObjectName(QStringLiteral("aboutText"));
  text->setOpenExternalLinks(true);
  text->setHtml(html(backendDescription));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(text);
  layout->addWidget(buttons);
  resize(560, 560);
}

}  // namespace modescope
