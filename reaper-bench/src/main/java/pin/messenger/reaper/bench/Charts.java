package pin.messenger.reaper.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The benchmark's pictures: PNG files (JFreeChart) written next to the figures they show, into the
 * folder given by {@code --charts <dir>} (default {@code docs/charts} when the working directory
 * has a {@code docs/} folder, as the repository root has; otherwise none are written). A chart that
 * cannot be drawn (e.g. a JDK without fonts) is reported as one line and never fails the benchmark:
 * the figures are the result, the pictures show them.
 */
final class Charts {
  /** One line of an XY chart: its name and its points {@code {x, y}} in order. */
  record Series(String name, List<double[]> points) {
    Series {
      points = List.copyOf(points);
    }

    static Series of(String name) {
      return new Series(name, List.of());
    }

    Series plus(double x, double y) {
      List<double[]> more = new ArrayList<>(points);
      more.add(new double[] {x, y});
      return new Series(name, more);
    }
  }

  private static final int WIDTH = 900;
  private static final int HEIGHT = 520;
  private static final Color[] PALETTE = {
    new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
    new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf), new Color(0x7f7f7f)
  };

  private final Path dir;
  private final BenchReport report;
  private final boolean enabled;

  private Charts(Path dir, BenchReport report, boolean enabled) {
    this.dir = dir;
    this.report = report;
    this.enabled = enabled;
  }

  /** From the benchmark's arguments: {@code --charts <dir>}, {@code --no-charts}. */
  static Charts from(List<String> args, BenchReport report) {
    if (args.contains("--no-charts")) {
      return new Charts(Path.of("."), report, false);
    }
    int at = args.indexOf("--charts");
    if (at >= 0 && at + 1 < args.size()) {
      return new Charts(Path.of(args.get(at + 1)), report, true);
    }
    Path docs = Path.of("docs");
    return new Charts(docs.resolve("charts"), report, Files.isDirectory(docs));
  }

  /** A line chart with points; {@code logX} for quantities spanning decades (history sizes). */
  void line(
      String file, String title, String xLabel, String yLabel, boolean logX, List<Series> series) {
    if (!enabled) {
      return;
    }
    XYSeriesCollection data = new XYSeriesCollection();
    for (Series s : series) {
      XYSeries xy = new XYSeries(s.name(), false, true);
      s.points().forEach(p -> xy.add(p[0], p[1]));
      data.addSeries(xy);
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
    XYPlot plot = chart.getXYPlot();
    if (logX) {
      LogarithmicAxis axis = new LogarithmicAxis(xLabel);
      axis.setAllowNegativesFlag(false);
      axis.setExpTickLabelsFlag(false);
      plot.setDomainAxis(axis);
    }
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < series.size(); i++) {
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    plot.setRenderer(renderer);
    write(file, style(chart));
  }

  /**
   * A grouped bar chart: {@code values} maps each series (legend entry) to its values by category
   * (x axis), in insertion order.
   */
  void bars(
      String file,
      String title,
      String categoryLabel,
      String valueLabel,
      Map<String, Map<String, Double>> values) {
    if (!enabled) {
      return;
    }
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    values.forEach(
        (series, byCategory) -> byCategory.forEach((c, v) -> data.addValue(v, series, c)));
    JFreeChart chart =
        ChartFactory.createBarChart(
            title, categoryLabel, valueLabel, data, PlotOrientation.VERTICAL, true, false, false);
    CategoryPlot plot = chart.getCategoryPlot();
    BarRenderer renderer = (BarRenderer) plot.getRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    for (int i = 0; i < values.size(); i++) {
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
    }
    write(file, style(chart));
  }

  private static JFreeChart style(JFreeChart chart) {
    chart.setBackgroundPaint(Color.WHITE);
    chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    chart.getPlot().setBackgroundPaint(new Color(0xf7f7f7));
    return chart;
  }

  private void write(String file, JFreeChart chart) {
    Path target = dir.resolve(file);
    try {
      Files.createDirectories(dir);
      ChartUtils.saveChartAsPNG(target.toFile(), chart, WIDTH, HEIGHT);
      report.line("  chart: " + target);
    } catch (IOException | RuntimeException | LinkageError e) {
      report.line("  chart " + file + " not written: " + e);
    }
  }
}
