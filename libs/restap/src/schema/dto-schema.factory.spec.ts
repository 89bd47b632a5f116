import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type as Nested } from 'class-transformer';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDateString, IsEmail, IsEnum, IsIn, IsInt, IsISO8601, IsNumber,
  IsOptional, IsString, IsUrl, IsUUID, Length, Matches, Max, MaxLength, Min, MinLength, ValidateNested,
} from 'class-validator';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DtoSchemaFactory } from './dto-schema.factory';

/** The schema of one property `value` of a DTO whose only property is decorated with `decorators`. */
function propertyOf(decorators: PropertyDecorator[], designType: unknown = String): Record<string, unknown> {
  class Probe {
    value: unknown;
  }
  Reflect.defineMetadata('design:type', designType, Probe.prototype, 'value');
  for (const decorate of [...decorators].reverse()) decorate(Probe.prototype, 'value');
  const schema = new DtoSchemaFactory().create(Probe);
  return (schema.properties as Record<string, Record<string, unknown>>).value;
}

function requiredOf(schema: Record<string, unknown>): string[] {
  return ((schema.required ?? []) as string[]).slice().sort();
}

enum Color { Red = 'red', Green = 'green' }
enum Level { Low, High }

describe('DTO → JSON Schema: one class-validator decorator at a time', () => {
  it('@IsString() → type string', () => expect(propertyOf([IsString()])).toEqual({ type: 'string' }));
  it('@IsInt() → type integer', () => expect(propertyOf([IsInt()], Number)).toEqual({ type: 'integer' }));
  it('@IsNumber() → type number', () => expect(propertyOf([IsNumber()], Number)).toEqual({ type: 'number' }));
  it('@IsBoolean() → type boolean', () => expect(propertyOf([IsBoolean()], Boolean)).toEqual({ type: 'boolean' }));

  it('@Min() / @Max() → minimum / maximum, keeping integer whichever order they are written in', () => {
    expect(propertyOf([IsInt(), Min(1), Max(10)], Number)).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
    expect(propertyOf([Min(1), Max(10), IsInt()], Number)).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
    expect(propertyOf([Min(0)], Number)).toEqual({ type: 'number', minimum: 0 });
  });

  it('@Length(min, max) → minLength and maxLength', () => {
    expect(propertyOf([IsString(), Length(2, 5)])).toEqual({ type: 'string', minLength: 2, maxLength: 5 });
  });
  it('@MinLength() / @MaxLength() → minLength / maxLength', () => {
    expect(propertyOf([IsString(), MinLength(1), MaxLength(80)])).toEqual({ type: 'string', minLength: 1, maxLength: 80 });
  });

  it('@IsEmail() → format email', () => expect(propertyOf([IsEmail()])).toEqual({ type: 'string', format: 'email' }));
  it('@IsUUID() → format uuid', () => expect(propertyOf([IsUUID()])).toEqual({ type: 'string', format: 'uuid' }));
  it('@IsUrl() → format uri (a JSON Schema format; "url" is not one)', () => {
    expect(propertyOf([IsUrl()])).toEqual({ type: 'string', format: 'uri' });
  });

  const dateOrDateTime = { oneOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }] };
  it('@IsISO8601() → a date or a date-time string', () => expect(propertyOf([IsISO8601()])).toEqual(dateOrDateTime));
  it('@IsDateString() → a date or a date-time string, which accepts what the validator accepts', () => {
    const schema = propertyOf([IsDateString()]);
    expect(schema).toEqual(dateOrDateTime);
    const ajv = addFormats(new Ajv2020({ strict: false }));
    expect(['2024-01-01T00:00:00Z', '2024-01-01'].map((v) => ajv.validate(schema, v))).toEqual([true, true]);
  });

  it('@IsEnum(string enum) → type string with the enum values', () => {
    expect(propertyOf([IsEnum(Color)])).toEqual({ type: 'string', enum: ['red', 'green'] });
  });
  it('@IsEnum(numeric enum) → type integer with the numbers only (no reverse mappings)', () => {
    expect(propertyOf([IsEnum(Level)], Number)).toEqual({ type: 'integer', enum: [0, 1] });
  });
  it('@IsIn([...]) → enum, typed when the values share a type', () => {
    expect(propertyOf([IsIn(['a', 'b'])])).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(propertyOf([IsIn(['a', 1])], Object)).toEqual({ enum: ['a', 1] });
  });

  it('@IsArray() + @ArrayMinSize() + @ArrayMaxSize() → array with minItems and maxItems', () => {
    expect(propertyOf([IsArray(), ArrayMinSize(1), ArrayMaxSize(3)], Array)).toEqual({ type: 'array', items: {}, minItems: 1, maxItems: 3 });
  });
  it('@IsString({ each: true }) on an array → items of type string', () => {
    expect(propertyOf([IsArray(), IsString({ each: true })], Array)).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('@Matches(RegExp) and @Matches(string) → pattern', () => {
    expect(propertyOf([Matches(/^[a-z]+$/)])).toEqual({ type: 'string', pattern: '^[a-z]+$' });
    expect(propertyOf([Matches('^[0-9]{3}$')])).toEqual({ type: 'string', pattern: '^[0-9]{3}$' });
  });
});

describe('DTO → JSON Schema: required properties', () => {
  class SignupDto {
    @IsEmail() email: string;
    @IsOptional() @IsString() nickname?: string;
    @IsOptional() @Min(13) age?: number;
  }

  it('a decorated property is required; @IsOptional() makes it not required', () => {
    const schema = new DtoSchemaFactory().create(SignupDto);
    expect(requiredOf(schema)).toEqual(['email']);
    expect(schema.properties).toEqual({
      email: { type: 'string', format: 'email' },
      nickname: { type: 'string' },
      age: { type: 'number', minimum: 13 },
    });
  });
});

describe('DTO → JSON Schema: nested DTOs are self-contained under $defs', () => {
  class GeoDto {
    @IsNumber() lat: number;
    @IsNumber() lng: number;
  }
  class AddressDto {
    @IsString() street: string;
    @ValidateNested() @Nested(() => GeoDto) geo: GeoDto;
  }
  class LineDto {
    @IsString() sku: string;
    @IsInt() @Min(1) qty: number;
  }
  class OrderDto {
    @ValidateNested() @Nested(() => AddressDto) shipTo: AddressDto;
    @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Nested(() => LineDto) lines: LineDto[];
  }

  it('@ValidateNested() + @Type() → $ref into $defs, nested again as deep as it goes', () => {
    const schema = new DtoSchemaFactory().create(OrderDto);
    expect(schema.properties).toMatchObject({ shipTo: { $ref: '#/$defs/AddressDto' } });
    expect(schema.$defs).toEqual({
      AddressDto: { type: 'object', properties: { street: { type: 'string' }, geo: { $ref: '#/$defs/GeoDto' } }, required: ['street', 'geo'] },
      GeoDto: { type: 'object', properties: { lat: { type: 'number' }, lng: { type: 'number' } }, required: ['lat', 'lng'] },
      LineDto: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } }, required: ['sku', 'qty'] },
    });
  });

  it('an array of nested DTOs → items $ref with the array constraints kept', () => {
    const schema = new DtoSchemaFactory().create(OrderDto);
    expect((schema.properties as Record<string, unknown>).lines).toEqual({ type: 'array', minItems: 1, items: { $ref: '#/$defs/LineDto' } });
  });

  it('the schema validates a good document and rejects a bad nested one (every $ref resolves)', () => {
    const validate = addFormats(new Ajv2020({ strict: false })).compile(new DtoSchemaFactory().create(OrderDto));
    const good = { shipTo: { street: 'Main 1', geo: { lat: 1, lng: 2 } }, lines: [{ sku: 'a', qty: 2 }] };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, lines: [{ sku: 'a', qty: 0 }] })).toBe(false);
    expect(validate({ ...good, shipTo: { street: 'x', geo: { lat: 'north' } } })).toBe(false);
  });

  it('a recursive DTO refers to itself through $defs', () => {
    class TreeNodeDto {
      @IsString() label: string;
      @IsOptional() @ValidateNested({ each: true }) @Nested(() => TreeNodeDto) children?: TreeNodeDto[];
    }
    const schema = new DtoSchemaFactory().create(TreeNodeDto);
    expect((schema.properties as Record<string, unknown>).children).toEqual({ type: 'array', items: { $ref: '#/$defs/TreeNodeDto' } });
    expect((schema.$defs as Record<string, unknown>).TreeNodeDto).toMatchObject({ properties: { label: { type: 'string' } } });
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate({ label: 'a', children: [{ label: 'b', children: [{ label: 'c' }] }] })).toBe(true);
    expect(validate({ label: 'a', children: [{ children: [] }] })).toBe(false);
  });

  it('two DTO classes with the same name keep their own schemas', () => {
    const make = (field: string) => {
      class ItemDto {}
      IsString()(ItemDto.prototype, field);
      return ItemDto;
    };
    const [first, second] = [make('title'), make('price')];
    class CartDto {
      @ValidateNested() @Nested(() => first) a: object;
      @ValidateNested() @Nested(() => second) b: object;
    }
    const factory = new DtoSchemaFactory();
    expect(factory.create(first).properties).toEqual({ title: { type: 'string' } });
    expect(factory.create(second).properties).toEqual({ price: { type: 'string' } });
    const cart = factory.create(CartDto);
    expect(Object.keys(cart.$defs as object).sort()).toEqual(['ItemDto', 'ItemDto_2']);
  });
});

describe('DTO → JSON Schema: @ApiProperty is merged in', () => {
  class ProfileDto {
    @ApiProperty({ description: 'Display name', example: 'Ada' })
    @IsString()
    @MaxLength(40)
    name: string;

    @ApiPropertyOptional({ description: 'Shown on the profile page', format: 'uri' })
    @IsOptional()
    @IsString()
    website?: string;

    @ApiProperty({ description: 'Server-side counter, not validated on input' })
    visits: number;

    @ApiPropertyOptional({ enum: Color, isArray: true })
    palette?: Color[];
  }

  it('description and example (as examples) are added to the derived property', () => {
    expect((new DtoSchemaFactory().create(ProfileDto).properties as Record<string, unknown>).name).toEqual({
      type: 'string', maxLength: 40, description: 'Display name', examples: ['Ada'],
    });
  });

  it('a format given to @ApiProperty fills in what class-validator left out', () => {
    expect((new DtoSchemaFactory().create(ProfileDto).properties as Record<string, unknown>).website).toEqual({
      type: 'string', description: 'Shown on the profile page', format: 'uri',
    });
  });

  it('a property known only to @ApiProperty appears with its declared type, required unless optional', () => {
    const schema = new DtoSchemaFactory().create(ProfileDto);
    const props = schema.properties as Record<string, unknown>;
    expect(props.visits).toEqual({ type: 'number', description: 'Server-side counter, not validated on input' });
    expect(props.palette).toEqual({ type: 'array', items: { type: 'string', enum: ['red', 'green'] } });
    expect(requiredOf(schema)).toEqual(['name', 'visits']);
  });

  it('a class with only @ApiProperty metadata still gets a full schema', () => {
    class ReceiptDto {
      @ApiProperty({ description: 'Receipt id' }) id: string;
      @ApiProperty({ type: () => ProfileDto }) owner: ProfileDto;
    }
    const schema = new DtoSchemaFactory().create(ReceiptDto);
    expect(schema.properties).toEqual({ id: { type: 'string', description: 'Receipt id' }, owner: { $ref: '#/$defs/ProfileDto' } });
    expect(Object.keys(schema.$defs as object)).toEqual(['ProfileDto']);
  });
});

describe('DTO → JSON Schema: primitives', () => {
  it.each([
    [String, { type: 'string' }], [Number, { type: 'number' }], [Boolean, { type: 'boolean' }],
    [Date, { type: 'string', format: 'date-time' }],
  ])('%p maps to its JSON type', (type, schema) => expect(new DtoSchemaFactory().create(type as never)).toEqual(schema));
});

describe('DTO → JSON Schema: @nestjs/swagger CLI plugin metadata (issue 15, schemas a user can trust)', () => {
  /** What the plugin compiles into a DTO: a static factory naming each property, its type lazily. */
  class PluginBase {
    id: number;
    static _OPENAPI_METADATA_FACTORY(): Record<string, unknown> {
      return { id: { required: true, type: () => Number } };
    }
  }
  class PluginDto extends PluginBase {
    name: string;
    tags?: string[];
    static override _OPENAPI_METADATA_FACTORY(): Record<string, unknown> {
      return { name: { required: true, type: () => String, description: 'Display name' }, tags: { required: false, type: () => [String], isArray: true } };
    }
  }

  it('a DTO with no decorators but plugin metadata gets its properties, inherited ones included', () => {
    const schema = new DtoSchemaFactory().create(PluginDto);
    expect(schema.properties).toEqual({
      id: { type: 'number' },
      name: { type: 'string', description: 'Display name' },
      tags: { type: 'array', items: { type: 'string' } },
    });
    expect(requiredOf(schema)).toEqual(['id', 'name']);
  });

  it('explicit @ApiProperty() wins over what the plugin generated', () => {
    class Annotated {
      @ApiProperty({ description: 'Written by hand' })
      label: string;
      static _OPENAPI_METADATA_FACTORY(): Record<string, unknown> {
        return { label: { required: true, type: () => String, description: 'generated' } };
      }
    }
    const schema = new DtoSchemaFactory().create(Annotated);
    expect((schema.properties as Record<string, Record<string, unknown>>).label).toEqual({ type: 'string', description: 'Written by hand' });
  });
});
