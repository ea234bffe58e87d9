/**
 * Mounts the guided tour `name` on its screen: `<TourFor name="spider-list" />` (one line in the screen).
 * Shown when localStorage enableTutorial is '1' and the tour is not finished (tours.ts). Waits briefly for the
 * screen to render, then keeps the steps whose `data-tour` target is on screen and visible (missing targets are
 * left out). Closing or finishing marks the tour finished and sends 'tour_end' {name, result}.
 *
 * Kept-alive views are hidden with display:none; a tour only starts while its anchor's parent is visible, so
 * hidden copies of a screen never start one, and targets are the visible elements only.
 */
import { useEffect, useRef, useState } from 'react';
import { Tour, type TourProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { sendEvent } from '../../app/stats.ts';
import {
  markTourFinished,
  shouldShowTour,
  stepTarget,
  stepText,
  TOUR_STEPS,
  tourEndResult,
  type TourName,
  type TourStepDef,
} from './tours.ts';

/** Delay before looking for targets (lets tables, modals and lazy tabs render and animate in). */
const SETTLE_MS = 500;
/** Give up waiting for a fully rendered screen after this long and use whatever targets exist. */
const WAIT_MS = 4000;
const POLL_MS = 150;

/** One tour at a time (e.g. spider-detail and spider-detail-config on the same screen). */
let running: string | null = null;

function isVisible(el: Element): boolean {
  return el.getClientRects().length > 0;
}

export function findTarget(target: string): HTMLElement | null {
  const all = document.querySelectorAll<HTMLElement>(`[data-tour="${CSS.escape(target)}"]`);
  for (const el of Array.from(all)) if (isVisible(el)) return el;
  return null;
}

export default function TourFor({ name, active = true }: { name: TourName; active?: boolean }) {
  const { t } = useTranslation('tours');
  const anchor = useRef<HTMLSpanElement>(null);
  const [targets, setTargets] = useState<TourStepDef[] | null>(null);
  const [current, setCurrent] = useState(0);
  const ended = useRef(false);

  useEffect(() => {
    if (!active || targets || ended.current) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout>;
    const started = Date.now();
    const look = () => {
      if (cancelled) return;
      if (!shouldShowTour(name)) return; // disabled or finished: never starts
      if (running && running !== name) {
        timer = setTimeout(look, 1000);
        return;
      }
      const host = anchor.current?.parentElement;
      const onScreen = !!host && isVisible(host);
      const found = onScreen ? TOUR_STEPS[name].filter((x) => findTarget(stepTarget(x))) : [];
      const waited = Date.now() - started;
      if (onScreen && found.length > 0 && (found.length === TOUR_STEPS[name].length || waited >= WAIT_MS)) {
        running = name;
        setCurrent(0);
        setTargets(found);
      } else if (waited < WAIT_MS || !onScreen) {
        // keep waiting: the screen may render later, or become visible again (kept-alive view)
        timer = setTimeout(look, onScreen ? POLL_MS : 1000);
      }
    };
    timer = setTimeout(look, SETTLE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [name, active, targets]);

  // Unmounted mid-tour (view closed): free the lock; the tour is not marked finished and shows again later.
  useEffect(
    () => () => {
      if (running === name && !ended.current) running = null;
    },
    [name],
  );

  const end = (at: number) => {
    if (ended.current || !targets) return;
    ended.current = true;
    const result = tourEndResult(at, targets.length - 1);
    markTourFinished(name);
    if (running === name) running = null;
    setTargets(null);
    void sendEvent('tour_end', { name, result });
  };

  const steps: TourProps['steps'] = (targets ?? []).map((x) => ({
    title: t(`${stepText(x)}.title`),
    description: t(`${stepText(x)}.desc`),
    target: () => findTarget(stepTarget(x)) ?? document.body,
  }));

  return (
    <>
      <span ref={anchor} style={{ display: 'none' }} />
      {targets && targets.length > 0 && (
        <Tour
          open={active}
          steps={steps}
          current={current}
          onChange={setCurrent}
          onClose={(at) => end(at)}
          rootClassName={`crawldeck-tour tour-${name}`}
        />
      )}
    </>
  );
}
