/// A small export_cda.xml (clinical document). Like real ones it has more than
/// one root element, so readers must never pick it as the Health export.
enum ClinicalDocument {
  static let text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
     <realmCode code="US"/>
     <typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>
     <title>Health Data</title>
    </ClinicalDocument>
    <component>
     <section>
      <entry>
       <organizer classCode="CLUSTER" moodCode="EVN"/>
      </entry>
     </section>
    </component>

    """
}
