// The template format's JSON Schema (the one the OpenAPI document publishes, made from
// the model), read the way the editor's forms need it.

export class FormatSchema {
  constructor(schemas) {
    this.schemas = schemas; // name -> schema, as in components.schemas
    this.resolvedKinds = null;
  }

  static async load(api) {
    const document = await api.json("/openapi.json");
    return new FormatSchema(document.components.schemas);
  }

  /** ``schema`` with its $ref and allOf resolved (keywords beside them kept). */
  resolve(schema) {
    if (!schema) return {};
    if (schema.$ref) {
      const { $ref, ...rest } = schema;
      const name = $ref.split("/").pop();
      return this.resolve({ title: name, ...this.schemas[name], ...rest });
    }
    if (schema.allOf) {
      const { allOf, ...rest } = schema;
      return Object.assign({}, ...allOf.map((part) => this.resolve(part)), rest);
    }
    return schema;
  }

  get template() {
    return this.resolve(this.schemas.Template);
  }

  /** The layer kinds: ``type`` -> schema of that kind's layer (resolved once). */
  get kinds() {
    if (!this.resolvedKinds) {
      const mapping = this.resolve(this.template.properties.layers.items).discriminator.mapping;
      this.resolvedKinds = Object.fromEntries(
        Object.entries(mapping).map(([kind, ref]) => [kind, this.resolve({ $ref: ref })]),
      );
    }
    return this.resolvedKinds;
  }

  layer(kind) {
    return this.kinds[kind];
  }

  /** The options of an anyOf, with "null" apart: ``{options, nullable}``. */
  options(schema) {
    const resolved = this.resolve(schema);
    if (!resolved.anyOf) return { options: [resolved], nullable: false };
    const nullable = resolved.anyOf.some((option) => option.type === "null");
    const options = resolved.anyOf.filter((option) => option.type !== "null").map((option) => this.resolve(option));
    return { options, nullable };
  }

  /** The value a new field of ``schema`` starts at. */
  initial(schema) {
    const resolved = this.resolve(schema);
    if (resolved.default !== undefined) return structuredClone(resolved.default);
    if (resolved.examples?.length) return structuredClone(resolved.examples[0]);
    if (resolved.anyOf) return this.initial(this.options(resolved).options[0]);
    if (resolved.enum) return resolved.enum[0];
    if (resolved.const !== undefined) return resolved.const;
    if (resolved["x-control"] === "color") return "#000000";
    switch (resolved.type) {
      case "number":
      case "integer":
        return resolved.minimum ?? (resolved.exclusiveMinimum !== undefined ? resolved.exclusiveMinimum + 1 : 0);
      case "boolean":
        return false;
      case "array":
        return [];
      case "object":
        return Object.fromEntries(
          (resolved.required || []).map((name) => [name, this.initial(resolved.properties?.[name])]),
        );
      default:
        return "";
    }
  }
}
