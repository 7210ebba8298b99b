/*
 * field_ids.h — the schema's field and section ids (MCPP_F_<id>,
 * MCPP_S_<id>), made from the list in schema_fields.h, without the
 * receipt's layout. Code outside receipt/ and io/ names a field by its id
 * and reads it through receipt/fields.h.
 */
#ifndef MCPP_RECEIPT_FIELD_IDS_H
#define MCPP_RECEIPT_FIELD_IDS_H

#include "receipt/schema_fields.h"

#define MCPP_X_FIELD_ID(id, sec, name, path, st, range, allowed, doc) MCPP_F_##id,
enum mcpp_field_id { MCPP_SCHEMA_FIELDS(MCPP_X_FIELD_ID) MCPP_FIELD_COUNT };
#undef MCPP_X_FIELD_ID

#define MCPP_X_SECTION_ID(id, parent, name, path, first, last) MCPP_S_##id,
enum mcpp_section_id { MCPP_SCHEMA_SECTIONS(MCPP_X_SECTION_ID) MCPP_SECTION_COUNT };
#undef MCPP_X_SECTION_ID

#endif /* MCPP_RECEIPT_FIELD_IDS_H */
