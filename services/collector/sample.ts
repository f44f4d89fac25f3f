/**
 * One time-series point of the collector (a "sample"), its typed fields, and its
 * two renderings: InfluxDB line protocol and the log line of every write.
 *
 * @module
 */
import { Point } from "@influxdata/influxdb-client";

/** A field value with the line-protocol type it must be written as. */
export type FieldValue =
  | { readonly type: "float"; readonly value: number }
  | { readonly type: "int"; readonly value: number }
  | { readonly type: "boolean"; readonly value: boolean };

/** One point of the collector (docs/collector.md): measurement, `location` tag, time and fields. */
export interface Sample {
  /** Measurement name, e.g. `home_pressure`. */
  readonly measurement: string;
  /** The `location` tag. */
  readonly location: "in" | "out";
  /** The `sensor` tag (a `BLE_SENSORS` name), when the point is one sensor's. */
  readonly sensor?: string;
  /** Time of the point. */
  readonly time: Date;
  /** Fields by name. */
  readonly fields: Readonly<Record<string, FieldValue>>;
}

/** A float field (`1013.2` in line protocol). */
export function float(value: number): FieldValue {
  return { type: "float", value };
}

/** An integer field (`2i` in line protocol). */
export function int(value: number): FieldValue {
  return { type: "int", value: Math.trunc(value) };
}

/** A boolean field (`true` in line protocol). */
export function bool(value: boolean): FieldValue {
  return { type: "boolean", value };
}

/**
 * Renders a sample as one line of InfluxDB line protocol with a millisecond
 * timestamp (the writer posts with `precision=ms`).
 *
 * @example
 * ```ts
 * toLineProtocol({ measurement: "home_rain", location: "out", time: new Date(0),
 *   fields: { value: bool(true), level: int(2) } });
 * // "home_rain,location=out level=2i,value=T 0"
 * ```
 */
export function toLineProtocol(sample: Sample): string {
  const point = new Point(sample.measurement)
    .tag("location", sample.location)
    .timestamp(sample.time);
  if (sample.sensor !== undefined) point.tag("sensor", sample.sensor);
  for (const [name, field] of Object.entries(sample.fields)) {
    if (field.type === "float") point.floatField(name, field.value);
    else if (field.type === "int") point.intField(name, field.value);
    else point.booleanField(name, field.value);
  }
  const line = point.toLineProtocol({
    convertTime: (value) =>
      value instanceof Date ? String(value.getTime()) : undefined,
  });
  if (line === undefined) {
    throw new Error(`Point "${sample.measurement}" has no fields`);
  }
  return line;
}

/**
 * Describes a write for the INFO log: time, measurement, location and fields as one
 * JSON object.
 */
export function describeSample(sample: Sample): string {
  const fields = Object.fromEntries(
    Object.entries(sample.fields).map(([name, field]) => [name, field.value]),
  );
  return `Write ${
    JSON.stringify({
      time: sample.time.toISOString(),
      measurement: sample.measurement,
      location: sample.location,
      ...(sample.sensor === undefined ? {} : { sensor: sample.sensor }),
      fields,
    })
  }`;
}
