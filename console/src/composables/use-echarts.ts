/**
 * One ECharts instance bound to an element: created when the element mounts, resized with it (a
 * ResizeObserver covers window, sidebar and phone rotation), re-created in the dark or light theme
 * when the system theme changes, and disposed on unmount. `setOption` may be called before mount.
 */
import { onActivated, onBeforeUnmount, onMounted, type Ref, ref } from 'vue';
import { type ChartOption, echarts } from '../charts/echarts.ts';
import { THEME_CHANGE_EVENT } from '../lib/theme.ts';

/** The console's theme (lib/theme.ts), else the system's. */
export function prefersDark(): boolean {
  const chosen = globalThis.document?.documentElement.dataset['theme'];
  if (chosen) return chosen === 'dark';
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
}

export function useEcharts(element: Ref<HTMLElement | null>) {
  let chart: echarts.ECharts | null = null;
  let option: ChartOption | null = null;
  let observer: ResizeObserver | null = null;
  const darkQuery = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  /** The element's width in px, for options that change on a narrow screen (0 until mounted). */
  const width = ref(0);

  function init(): void {
    if (!element.value) return;
    chart?.dispose();
    chart = echarts.init(element.value, prefersDark() ? 'dark' : undefined, { renderer: 'canvas' });
    if (option) chart.setOption({ backgroundColor: 'transparent', ...option }, { notMerge: true });
  }

  function setOption(next: ChartOption): void {
    option = next;
    chart?.setOption({ backgroundColor: 'transparent', ...next }, { notMerge: true });
  }

  const resize = () => {
    width.value = element.value?.clientWidth ?? 0;
    chart?.resize();
  };
  const onThemeChange = () => init();

  onMounted(() => {
    width.value = element.value?.clientWidth ?? 0;
    init();
    if (element.value && typeof ResizeObserver !== 'undefined') {
      observer = new ResizeObserver(resize);
      observer.observe(element.value);
    }
    darkQuery?.addEventListener('change', onThemeChange);
    globalThis.addEventListener?.(THEME_CHANGE_EVENT, onThemeChange);
  });
  // Kept-alive views come back at their old size; the container may have changed meanwhile.
  onActivated(resize);
  onBeforeUnmount(() => {
    observer?.disconnect();
    darkQuery?.removeEventListener('change', onThemeChange);
    globalThis.removeEventListener?.(THEME_CHANGE_EVENT, onThemeChange);
    chart?.dispose();
    chart = null;
  });

  return { setOption, resize, width, instance: () => chart };
}
