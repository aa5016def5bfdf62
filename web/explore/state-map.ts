import { geoPath } from "d3-geo";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import states from "us-atlas/states-albers-10m.json";
import { escapeHtml, formatCount } from "./html-text.js";

/** A state's shape, projected already (us-atlas's Albers USA, 975 x 610). */
interface StateShape {
  name: string;
  path: string;
}

let shapes: StateShape[] | undefined;

/** The 50 states and the District of Columbia as SVG path data, computed once. */
function stateShapes(): StateShape[] {
  if (shapes === undefined) {
    const topology = states as unknown as Topology<{ states: GeometryCollection<{ name: string }> }>;
    const collection = feature(topology, topology.objects.states);
    const path = geoPath();
    shapes = collection.features
      .map((state) => ({ name: state.properties.name, path: path(state) ?? "" }))
      .sort((left, right) => left.name.localeCompare(right.name));
  }
  return shapes;
}

/** The names the map draws, for telling which states of an answer have no shape (territories, ""). */
export function mappedStates(): ReadonlySet<string> {
  return new Set(stateShapes().map((shape) => shape.name));
}

const LIGHT = [222, 235, 247];
const DARK = [8, 48, 107];
const NO_DATA = "#f4f4f4";

/**
 * The fill of a state with `count` complaints when the most has `max`: from light to dark blue
 * as the count grows (square root, so that small states still differ). Every channel falls as
 * the count grows, so a darker fill always means more complaints.
 */
export function fillFor(count: number, max: number): string {
  if (count <= 0 || max <= 0) return NO_DATA;
  const t = Math.sqrt(count / max);
  const channel = (index: number) => Math.round(LIGHT[index]! + (DARK[index]! - LIGHT[index]!) * t);
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}

/**
 * An SVG map of complaints by state: one shape per state, filled by its count, each a link to
 * `hrefOf(state)` (so it is reached with Tab and followed with Enter, and named for screen
 * readers), with a legend. `counts` is keyed by the state's name as the map writes it.
 */
export function stateMapHtml(counts: ReadonlyMap<string, number>, hrefOf: (state: string) => string): string {
  let max = 0;
  for (const count of counts.values()) max = Math.max(max, count);
  const paths = stateShapes()
    .map((shape) => {
      const count = counts.get(shape.name) ?? 0;
      const label = `${shape.name}: ${formatCount(count)} complaint${count === 1 ? "" : "s"}`;
      const path = `<path d="${shape.path}" fill="${fillFor(count, max)}" data-state="${escapeHtml(shape.name)}" data-count="${count}"><title>${escapeHtml(label)}</title></path>`;
      return count > 0
        ? `<a href="${escapeHtml(hrefOf(shape.name))}" aria-label="${escapeHtml(label)}">${path}</a>`
        : path;
    })
    .join("");
  const stops = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (step) => `<stop offset="${step * 100}%" stop-color="${fillFor(step * step * max || 1, max || 1)}"/>`,
    )
    .join("");
  return `<svg class="state-map" viewBox="0 0 975 650" role="group" aria-label="Map of complaints by state; each state with complaints is a link to its cities and area codes">
<defs><linearGradient id="map-scale">${stops}</linearGradient></defs>
<g class="states">${paths}</g>
<g class="legend" aria-hidden="true"><rect x="600" y="620" width="240" height="12" fill="url(#map-scale)"/><text x="595" y="631" text-anchor="end">fewer</text><text x="845" y="631">more (${formatCount(max)})</text></g>
</svg>`;
}
